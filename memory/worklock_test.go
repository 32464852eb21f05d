package memory

import (
	"bufio"
	"errors"
	"io"
	"os"
	"os/exec"
	"testing"
)

// TestWorkLockHelper is the other process of TestWorkLockTwoProcesses: it
// takes the lock and holds it until its stdin closes.
func TestWorkLockHelper(t *testing.T) {
	dir := os.Getenv("LANTERN_WORKLOCK_HELPER")
	if dir == "" {
		t.Skip("helper process only")
	}
	l, err := LockWorkDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	os.Stdout.WriteString("locked\n")
	io.Copy(io.Discard, os.Stdin)
	l.Unlock()
}

func TestWorkLockTwoProcesses(t *testing.T) {
	t.Parallel() // waits on children or a held lock, not on the processor
	dir := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^TestWorkLockHelper$")
	cmd.Env = append(os.Environ(), "LANTERN_WORKLOCK_HELPER="+dir)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil || line != "locked\n" {
		stdin.Close()
		cmd.Wait()
		t.Fatalf("helper: %q, %v", line, err)
	}
	_, err = LockWorkDir(dir)
	var iu *InUseError
	if !errors.Is(err, ErrInUse) || !errors.As(err, &iu) || iu.PID != cmd.Process.Pid {
		t.Errorf("second lock: %v, want ErrInUse with PID %d", err, cmd.Process.Pid)
	}
	if pid, inUse, err := WorkDirOwner(dir); err != nil || !inUse || pid != cmd.Process.Pid {
		t.Errorf("WorkDirOwner = %d, %v, %v; want %d, true", pid, inUse, err, cmd.Process.Pid)
	}
	stdin.Close()
	if err := cmd.Wait(); err != nil {
		t.Fatalf("helper: %v", err)
	}
	if _, inUse, err := WorkDirOwner(dir); err != nil || inUse {
		t.Errorf("after the owner left: in use %v, %v", inUse, err)
	}
	l, err := LockWorkDir(dir)
	if err != nil {
		t.Fatalf("lock after the owner left: %v", err)
	}
	l.Unlock()
}

// The lock is the process's, not the file's: deleting or replacing
// lantern.lock while a Lantern owns the dir lets no second one in.
func TestWorkLockSurvivesDeletedLockFile(t *testing.T) {
	for _, replace := range []bool{false, true} {
		dir := t.TempDir()
		first, err := LockWorkDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		path := dir + "/" + WorkLockName
		if err := os.Remove(path); err != nil {
			t.Fatal(err)
		}
		if replace {
			if err := os.WriteFile(path, nil, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		if l, err := LockWorkDir(dir); !errors.Is(err, ErrInUse) {
			if l != nil {
				l.Unlock()
			}
			t.Fatalf("replace=%v: a second lock after the file was deleted: %v, want ErrInUse", replace, err)
		}
		if _, inUse, err := WorkDirOwner(dir); err != nil || !inUse {
			t.Fatalf("replace=%v: WorkDirOwner in use %v, %v", replace, inUse, err)
		}
		first.Unlock()
		l, err := LockWorkDir(dir)
		if err != nil {
			t.Fatalf("lock after the owner left: %v", err)
		}
		l.Unlock()
	}
}
