package export

import (
	"bytes"
	"context"
	"image"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/net/html"

	"github.com/lantern-if/lantern/sharedtest"
)

// The HTML page parses as HTML, holds the chart and the map as inline SVG
// and refers to nothing outside itself.
func TestHTMLIsSelfContained(t *testing.T) {
	var b bytes.Buffer
	if err := Write(&b, load(t, 1), "html"); err != nil {
		t.Fatal(err)
	}
	doc, err := html.Parse(bytes.NewReader(b.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	ids := map[string]bool{}
	var rooms, sections, styles int
	var walk func(n *html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode {
			for _, a := range n.Attr {
				switch a.Key {
				case "id":
					ids[a.Val] = true
				case "src", "href", "srcset", "action":
					t.Errorf("<%s %s=%q>: the page refers outside itself", n.Data, a.Key, a.Val)
				case "class":
					if n.Data == "rect" && strings.HasPrefix(a.Val, "room") {
						rooms++
					}
					if n.Data == "section" {
						sections++
					}
				}
			}
			switch n.Data {
			case "script", "link", "img", "iframe", "object", "embed":
				t.Errorf("<%s> in a self-contained page", n.Data)
			case "style":
				styles++
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(doc)
	if !ids["score-chart"] || !ids["map"] || rooms != 4 || sections != 5 || styles != 1 {
		t.Errorf("ids %v, %d rooms, %d turns, %d styles", ids, rooms, sections, styles)
	}
	page := b.String()
	if strings.Contains(page, "http") || strings.Contains(page, "@import") {
		t.Error("the page names an address")
	}
	if !strings.Contains(page, "&lt;lean&gt; &amp; gossip") {
		t.Error("the story's text is not escaped")
	}
}

// A headless Chromium renders the page: the screenshot is the page's (not
// blank), with the score line's and the current room's colours on it.
func TestHTMLRendersInHeadlessChromium(t *testing.T) {
	chrome := sharedtest.Chromium(t)
	dir := t.TempDir()
	page := filepath.Join(dir, "episode.html")
	var b bytes.Buffer
	if err := Write(&b, load(t, 1), "html"); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(page, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	shot := filepath.Join(dir, "shot.png")
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, chrome, "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
		"--no-first-run", "--user-data-dir="+filepath.Join(dir, "profile"), "--hide-scrollbars",
		"--window-size=1000,1400", "--screenshot="+shot, "file://"+page)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("chromium: %v\n%s", err, out)
	}
	f, err := os.Open(shot)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatal(err)
	}
	if img.Bounds().Dx() != 1000 || img.Bounds().Dy() != 1400 {
		t.Errorf("screenshot %v", img.Bounds())
	}
	if dst := os.Getenv("LANTERN_SCREENSHOT_DIR"); dst != "" {
		_ = os.WriteFile(filepath.Join(dst, "episode.png"), mustRead(t, shot), 0o644)
	}
	// #c9822b is the score line, #fde7b0 the current room's fill.
	if n := near(img, 0xc9, 0x82, 0x2b); n < 50 {
		t.Errorf("the score line is not drawn (%d pixels of its colour)", n)
	}
	if n := near(img, 0xfd, 0xe7, 0xb0); n < 500 {
		t.Errorf("the current room is not drawn (%d pixels of its colour)", n)
	}
}

func mustRead(t *testing.T, path string) []byte {
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// near counts the pixels within a few levels of a colour.
func near(img image.Image, r, g, b uint8) int {
	n := 0
	bd := img.Bounds()
	for y := bd.Min.Y; y < bd.Max.Y; y++ {
		for x := bd.Min.X; x < bd.Max.X; x++ {
			pr, pg, pb, _ := img.At(x, y).RGBA()
			if diff(uint8(pr>>8), r) < 6 && diff(uint8(pg>>8), g) < 6 && diff(uint8(pb>>8), b) < 6 {
				n++
			}
		}
	}
	return n
}

func diff(a, b uint8) int {
	if a > b {
		return int(a - b)
	}
	return int(b - a)
}
