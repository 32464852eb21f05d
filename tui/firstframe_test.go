package tui

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/lantern-if/lantern/engine"
	"github.com/lantern-if/lantern/engine/session"
	"github.com/lantern-if/lantern/game_files/demo"
	"github.com/lantern-if/lantern/llm"
	"github.com/lantern-if/lantern/zmachine"
)

// firstFrameEnv makes the test binary a child that draws the TUI's first
// frame on the demo and exits (BenchmarkFirstFrame/process).
const firstFrameEnv = "LANTERN_FIRST_FRAME_CHILD"

// demoFirstFrame opens a session on the demo in dir, as `lantern` does
// (the model server unreachable, the engine started paused), and returns
// the TUI's first frame at w×h.
func demoFirstFrame(dir string, w, h int) (string, error) {
	story, err := zmachine.LoadStory(demo.Story())
	if err != nil {
		return "", err
	}
	client, err := llm.New(llm.Options{Host: "127.0.0.1:9"})
	if err != nil {
		return "", err
	}
	sess, err := session.Open(session.Options{Story: story, Name: demo.FileName, WorkDir: dir, Client: client,
		Engine: engine.Config{StartPaused: true}})
	if err != nil {
		return "", err
	}
	defer sess.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- sess.Engine.Run(ctx) }()
	m := New(ctx, Options{Engine: sess.Engine, Models: client, Memories: sess.Memories, Episodes: sess.DB, Notes: sess.DB,
		Story: "demo", MaxScore: 100, Theme: "dark", RefreshEvery: -1})
	m.Update(tea.WindowSizeMsg{Width: w, Height: h})
	_ = m.Init() // Bubble Tea runs Init's commands beside the first frame
	frame := m.Render()
	cancel()
	<-done
	return frame, nil
}

// TestFirstFrameChild is the child of BenchmarkFirstFrame/process; it does
// nothing unless the benchmark started it.
func TestFirstFrameChild(t *testing.T) {
	if os.Getenv(firstFrameEnv) != "1" {
		t.Skip("the child of BenchmarkFirstFrame/process")
	}
	frame, err := demoFirstFrame(t.TempDir(), 120, 40)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Print(frame)
}

// TestDemoFirstFrame: the first frame on the demo has every pane.
func TestDemoFirstFrame(t *testing.T) {
	frame, err := demoFirstFrame(t.TempDir(), 120, 40)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Transcript", "Reasoning", "Memory", "Objectives", "Map"} {
		if !strings.Contains(frame, want) {
			t.Errorf("the first frame lacks %q:\n%s", want, frame)
		}
	}
}

// BenchmarkFirstFrame is the TUI's start-up on the demo (the goal: the
// first frame within 150 ms). process starts this test binary afresh each
// time, so the runtime's and every linked package's initialisation (a
// Markdown renderer's included) count, then opens the session and draws
// the first frame; inprocess is the session and the frame alone.
func BenchmarkFirstFrame(b *testing.B) {
	b.Run("process", func(b *testing.B) {
		exe, err := os.Executable()
		if err != nil {
			b.Fatal(err)
		}
		for b.Loop() {
			cmd := exec.Command(exe, "-test.run=^TestFirstFrameChild$", "-test.count=1")
			cmd.Env = append(os.Environ(), firstFrameEnv+"=1")
			out, err := cmd.Output()
			if err != nil || !strings.Contains(string(out), "Transcript") {
				b.Fatalf("child: %v\n%s", err, out)
			}
		}
	})
	b.Run("inprocess", func(b *testing.B) {
		for b.Loop() {
			if _, err := demoFirstFrame(b.TempDir(), 120, 40); err != nil {
				b.Fatal(err)
			}
		}
	})
}
