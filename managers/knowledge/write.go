package knowledge

import (
	"errors"
	"fmt"
	"strings"

	"github.com/lantern-if/lantern/atomicfile"
	"github.com/lantern-if/lantern/sanitize"
)

// ErrNotWritten: knowledgebase.md could not be written. The new version is
// kept (Pending) and written by the next change or Flush; the error is an
// *atomicfile.NotWrittenError naming the file.
var ErrNotWritten = atomicfile.ErrNotWritten

// ErrEncoding: knowledgebase.md is in an encoding Lantern cannot write
// back (UTF-16 without a byte-order mark, UTF-32); it is never written.
var ErrEncoding = errors.New("knowledge file in an encoding Lantern cannot write")

// read is the file as it stands for the manager: the version a failed
// write kept, else the file on disk (checked for type and size).
func (m *Manager) read() ([]byte, error) {
	m.wmu.Lock()
	p := m.pending
	m.wmu.Unlock()
	if p != nil {
		return p, nil
	}
	return atomicfile.ReadRegular(m.cfg.Path, MaxFileBytes)
}

// write puts data on disk with a backup, or keeps it as pending. The
// file is for people: the control characters a model wrote are
// neutralised first.
func (m *Manager) write(data []byte) error {
	data = []byte(sanitize.Text(string(data)))
	m.wmu.Lock()
	defer m.wmu.Unlock()
	if err := (atomicfile.Writer{FS: m.cfg.Files}).Write(m.cfg.Path, data, 0o644, true); err != nil {
		m.pending = data
		m.writeErr = &atomicfile.NotWrittenError{Path: m.cfg.Path, Err: err}
		return m.writeErr
	}
	m.pending, m.writeErr = nil, nil
	return nil
}

// Pending is the version a failed write kept, nil when the file is current.
func (m *Manager) Pending() []byte {
	m.wmu.Lock()
	defer m.wmu.Unlock()
	return m.pending
}

// WriteErr is the failed write's *atomicfile.NotWrittenError while a version is pending.
func (m *Manager) WriteErr() error {
	m.wmu.Lock()
	defer m.wmu.Unlock()
	return m.writeErr
}

// Flush writes the pending version, if any.
func (m *Manager) Flush() error {
	p := m.Pending()
	if p == nil {
		return nil
	}
	return m.write(p)
}

// RestorePending writes a version kept across a restart (a failed write
// before the last session ended), the file on disk kept as its backup.
func (m *Manager) RestorePending(data []byte) error { return m.write(data) }

// setNote keeps one note per episode: an episode synthesised again (its
// end interrupted, then resumed) replaces its note instead of adding one.
func (d *Doc) setNote(episode int, note string) {
	prefix := fmt.Sprintf("Episode %d (", episode)
	for i, n := range d.Notes {
		if strings.HasPrefix(n, prefix) {
			d.Notes[i] = note
			return
		}
	}
	d.Notes = append(d.Notes, note)
}
