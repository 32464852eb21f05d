package atomicfile

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestWriteKeepsBackupAndLeavesNoTemp(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "state.json")
	for _, v := range []string{"one", "two", "three"} {
		if err := Write(p, []byte(v), 0o644, true); err != nil {
			t.Fatal(err)
		}
	}
	got, _ := os.ReadFile(p)
	bak, _ := os.ReadFile(p + ".backup")
	if string(got) != "three" || string(bak) != "two" {
		t.Fatalf("file %q backup %q, want three/two", got, bak)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 2 {
		t.Fatalf("want only the file and its backup, got %d entries", len(entries))
	}
}

func TestWriteIntoMissingDirFails(t *testing.T) {
	if err := Write(filepath.Join(t.TempDir(), "no", "such"), []byte("x"), 0o644, false); err == nil {
		t.Fatal("want an error for a missing directory")
	}
}

func TestReplaceIsAtomicWithoutBackup(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "autosave.qzl")
	for _, v := range []string{"a", "b"} {
		if err := Replace(p, []byte(v), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, _ := os.ReadFile(p)
	entries, _ := os.ReadDir(dir)
	if string(got) != "b" || len(entries) != 1 {
		t.Fatalf("content %q, %d entries; want b and no backup or temp", got, len(entries))
	}
}

// A symbolic link planted at the temporary file's name is replaced, never
// written through.
func TestPlantedTempLinkIsNotFollowed(t *testing.T) {
	dir := t.TempDir()
	outside := filepath.Join(t.TempDir(), "victim")
	if err := os.WriteFile(outside, []byte("untouched"), 0o644); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "state.json")
	tmp := filepath.Join(dir, ".state.json.tmp-"+strconv.Itoa(os.Getpid()))
	if err := os.Symlink(outside, tmp); err != nil {
		t.Fatal(err)
	}
	if err := Write(path, []byte("new"), 0o644, true); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(outside); string(got) != "untouched" {
		t.Fatalf("the link's target was written: %q", got)
	}
	if got, _ := os.ReadFile(path); string(got) != "new" {
		t.Fatalf("the file holds %q", got)
	}
}

// Every injected fault fails the write, leaves the old file and no temp.
func TestFaultsLeaveTheOldFile(t *testing.T) {
	for _, op := range []Op{OpOpen, OpWrite, OpSync, OpRename, OpRead} {
		dir := t.TempDir()
		p := filepath.Join(dir, "Memories.md")
		if err := os.WriteFile(p, []byte("old"), 0o644); err != nil {
			t.Fatal(err)
		}
		ffs := &FaultFS{}
		ffs.SetRule(func(o Op, _ string) error {
			if o == op {
				return syscall.ENOSPC
			}
			return nil
		})
		w := Writer{FS: ffs}
		err := w.Write(p, []byte("new"), 0o644, true)
		if !errors.Is(err, syscall.ENOSPC) || !strings.Contains(err.Error(), "Memories.md") {
			t.Fatalf("%s: error %v, want ENOSPC naming the file", op, err)
		}
		if got, _ := os.ReadFile(p); string(got) != "old" {
			t.Fatalf("%s: the file holds %q", op, got)
		}
		entries, _ := os.ReadDir(dir)
		for _, e := range entries {
			if strings.Contains(e.Name(), ".tmp-") {
				t.Fatalf("%s: temp %s left", op, e.Name())
			}
		}
		ffs.SetRule(nil)
		if err := w.Write(p, []byte("new"), 0o644, true); err != nil {
			t.Fatalf("%s: after the fault cleared: %v", op, err)
		}
		if ffs.Failed() != 1 {
			t.Fatalf("%s: %d faults injected, want 1", op, ffs.Failed())
		}
	}
}

// A transient failure is retried; a lasting one is not.
func TestTransientFaultsRetried(t *testing.T) {
	p := filepath.Join(t.TempDir(), "state.json")
	ffs := &FaultFS{}
	left := 2
	ffs.SetRule(func(o Op, _ string) error {
		if o == OpWrite && left > 0 {
			left--
			return syscall.EINTR
		}
		return nil
	})
	if err := (Writer{FS: ffs}).Replace(p, []byte("x"), 0o644); err != nil {
		t.Fatalf("two interrupted writes then one that works: %v", err)
	}
	ffs.SetRule(func(o Op, _ string) error { return syscall.EROFS })
	if err := (Writer{FS: ffs}).Replace(p, []byte("y"), 0o644); !errors.Is(err, syscall.EROFS) || ffs.Failed() != 3 {
		t.Fatalf("read-only: %v after %d faults, want EROFS after 3 (no retry)", err, ffs.Failed())
	}
}

// The output a person names is written, not replaced, when it is not a
// regular file: a device stays a device, a FIFO gets the data.
func TestWriteTargetSpecialFiles(t *testing.T) {
	ctx := context.Background()
	if err := WriteTarget(ctx, "/dev/null", []byte("data"), 0o644); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat("/dev/null"); err != nil || fi.Mode()&os.ModeCharDevice == 0 {
		t.Fatalf("/dev/null is no longer a device: %v %v", fi.Mode(), err)
	}
	dir := t.TempDir()
	fifo := filepath.Join(dir, "pipe")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("no FIFOs here: %v", err)
	}
	got := make(chan []byte)
	go func() {
		f, err := os.Open(fifo)
		if err != nil {
			got <- nil
			return
		}
		b, _ := io.ReadAll(f)
		f.Close()
		got <- b
	}()
	if err := WriteTarget(ctx, fifo, []byte("through the pipe"), 0o644); err != nil {
		t.Fatal(err)
	}
	if b := <-got; string(b) != "through the pipe" {
		t.Fatalf("the reader got %q", b)
	}
	if fi, _ := os.Lstat(fifo); fi.Mode()&os.ModeNamedPipe == 0 {
		t.Fatal("the FIFO was replaced")
	}
	// No reader: the wait ends with the context.
	cctx, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
	defer cancel()
	if err := WriteTarget(cctx, fifo, []byte("x"), 0o644); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("FIFO without a reader: %v", err)
	}
	// A link to a regular file: the file is replaced, the link kept.
	real := filepath.Join(dir, "real.md")
	os.WriteFile(real, []byte("old"), 0o600)
	link := filepath.Join(dir, "link.md")
	os.Symlink(real, link)
	if err := WriteTarget(ctx, link, []byte("new"), 0o644); err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Lstat(link); fi.Mode()&os.ModeSymlink == 0 {
		t.Fatal("the link was replaced")
	}
	if b, _ := os.ReadFile(real); string(b) != "new" {
		t.Fatalf("the link's target holds %q", b)
	}
}

// Inputs are checked for type and size before a byte is read: /dev/zero,
// a FIFO (no writer: it must not wait) and a directory are refused, and so
// is a file over the limit.
func TestReadRegular(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	big := filepath.Join(dir, "big")
	os.WriteFile(big, make([]byte, 2048), 0o644)
	small := filepath.Join(dir, "small")
	os.WriteFile(small, []byte("ok"), 0o644)
	tests := []struct {
		path string
		want error
	}{
		{"/dev/zero", ErrNotRegular},
		{fifo, ErrNotRegular},
		{dir, ErrNotRegular},
		{big, ErrTooLarge},
		{small, nil},
	}
	for _, tc := range tests {
		data, err := ReadRegular(tc.path, 1024)
		if tc.want == nil {
			if err != nil || string(data) != "ok" {
				t.Errorf("%s: %q, %v", tc.path, data, err)
			}
			continue
		}
		if !errors.Is(err, tc.want) || !strings.Contains(err.Error(), tc.path) {
			t.Errorf("%s: %v, want %v naming the file", tc.path, err, tc.want)
		}
	}
}
