package knowledge

import (
	"fmt"
	"strings"

	"github.com/lantern-if/lantern/sanitize"
)

// The sections of knowledgebase.md, in file order: what killed the agent
// comes first (the agent's prompt clips the knowledge at its end), then the
// strategy, then one line per finished episode.
const (
	headLessons  = "Hard lessons from deaths"
	headStrategy = "Strategy"
	headNotes    = "Episode notes"
)

// Doc is knowledgebase.md parsed into its sections.
type Doc struct {
	Story    string
	Lessons  []string // one line each, without the "- "
	Strategy string   // markdown, as the model (or a person) wrote it
	Notes    []string // one line per episode, oldest first
	// Extra are the sections a person added under headings of their own,
	// each with its heading line first, kept verbatim after the notes: no
	// model rewrites them and no budget cuts them.
	Extra []string
}

// Parse reads knowledgebase.md. It is tolerant: a file written by hand
// without the three headings is all strategy; a section it does not know is
// a person's (Extra), kept as written; bullet continuation lines join their
// bullet.
func Parse(text string) Doc {
	var d Doc
	var strat []string
	section := headStrategy
	var list *[]string
	for _, line := range strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n") {
		trimmed := strings.TrimSpace(line)
		switch {
		case strings.HasPrefix(trimmed, "# ") && d.Story == "" && len(strat) == 0 && len(d.Lessons) == 0:
			d.Story = strings.TrimSpace(strings.TrimPrefix(strings.TrimPrefix(trimmed, "# "), "Knowledge base:"))
			continue
		case strings.HasPrefix(trimmed, "## "):
			h := strings.TrimSpace(strings.TrimPrefix(trimmed, "## "))
			switch {
			case strings.EqualFold(h, headLessons):
				section, list = headLessons, &d.Lessons
				continue
			case strings.EqualFold(h, headNotes):
				section, list = headNotes, &d.Notes
				continue
			case strings.EqualFold(h, headStrategy):
				section, list = headStrategy, nil
				continue
			}
			// Unknown heading: a person's own section, kept as written.
			section, list = headExtra, nil
			d.Extra = append(d.Extra, line)
			continue
		}
		if section == headExtra {
			d.Extra[len(d.Extra)-1] += "\n" + line
			continue
		}
		if section == headStrategy {
			if trimmed != noneYet {
				strat = append(strat, line)
			}
			continue
		}
		switch {
		case trimmed == "" || trimmed == noneYet:
		case strings.HasPrefix(trimmed, "- ") || strings.HasPrefix(trimmed, "* "):
			*list = append(*list, sanitize.UnescapeBlock(strings.TrimSpace(trimmed[2:])))
		case len(*list) > 0:
			(*list)[len(*list)-1] += " " + trimmed
		default:
			*list = append(*list, sanitize.UnescapeBlock(trimmed))
		}
	}
	d.Strategy = strings.TrimSpace(strings.Join(strat, "\n"))
	for i, x := range d.Extra {
		d.Extra[i] = strings.TrimRight(x, " \t\n")
	}
	return d
}

// headExtra marks a person's section while parsing; it is no heading.
const headExtra = "\x00extra"

const noneYet = "(none yet)"

// Render writes the document as knowledgebase.md. What a model wrote is
// data there, never structure: a lesson or a note is one list item whose
// text has a leading block marker escaped (sanitize.EscapeBlock; Parse
// takes the escape off), the strategy keeps its paragraphs and lists and
// nothing else (sanitize.MarkdownLists: a heading it holds would otherwise
// start a section of its own). The person's own sections are theirs, kept
// as written.
func (d Doc) Render() string {
	var b strings.Builder
	story := sanitize.OneLine(d.Story)
	if story == "" {
		story = "this story"
	}
	fmt.Fprintf(&b, "# Knowledge base: %s\n\n", story)
	fmt.Fprintf(&b, "## %s\n\n", headLessons)
	writeList(&b, d.Lessons)
	fmt.Fprintf(&b, "\n## %s\n\n", headStrategy)
	if s := strings.TrimSpace(sanitize.MarkdownLists(d.Strategy)); s != "" {
		b.WriteString(s)
		b.WriteByte('\n')
	} else {
		b.WriteString(noneYet + "\n")
	}
	fmt.Fprintf(&b, "\n## %s\n\n", headNotes)
	writeList(&b, d.Notes)
	for _, x := range d.Extra {
		b.WriteString("\n" + x + "\n")
	}
	return b.String()
}

func writeList(b *strings.Builder, items []string) {
	if len(items) == 0 {
		b.WriteString(noneYet + "\n")
		return
	}
	for _, it := range items {
		fmt.Fprintf(b, "- %s\n", sanitize.EscapeBlock(sanitize.OneLine(it)))
	}
}

// ForAgent is the knowledge as the agent's prompt shows it: the lessons,
// the strategy, the most recent episode notes; empty when there is nothing.
func (d Doc) ForAgent() string {
	var b strings.Builder
	if len(d.Lessons) > 0 {
		b.WriteString("Hard lessons from deaths:\n")
		for _, l := range d.Lessons {
			fmt.Fprintf(&b, "- %s\n", sanitize.OneLine(l))
		}
	}
	if s := strings.TrimSpace(d.Strategy); s != "" {
		if b.Len() > 0 {
			b.WriteByte('\n')
		}
		b.WriteString("Strategy:\n")
		b.WriteString(s)
		b.WriteByte('\n')
	}
	for _, x := range d.Extra {
		if b.Len() > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(x), "##")) + "\n")
	}
	if n := len(d.Notes); n > 0 {
		if b.Len() > 0 {
			b.WriteByte('\n')
		}
		b.WriteString("Past episodes:\n")
		for _, note := range d.Notes[max(0, n-3):] {
			fmt.Fprintf(&b, "- %s\n", sanitize.OneLine(note))
		}
	}
	return strings.TrimSpace(b.String())
}

// Empty reports whether the document holds no knowledge.
func (d Doc) Empty() bool {
	return len(d.Lessons) == 0 && len(d.Notes) == 0 && strings.TrimSpace(d.Strategy) == "" && len(d.Extra) == 0
}

// addLesson appends a lesson unless the same one (ignoring case, spacing
// and punctuation) is already there.
func (d *Doc) addLesson(l string) bool {
	l = sanitize.OneLine(l)
	if l == "" {
		return false
	}
	for _, have := range d.Lessons {
		if norm(have) == norm(l) {
			return false
		}
	}
	d.Lessons = append(d.Lessons, l)
	return true
}

// addDeath records a death seen in the ground truth. The same death (same
// place, same action) is one lesson whose references grow: "[Ep1 T9, Ep2
// T14]" (the last three kept).
func (d *Doc) addDeath(key, what, ref string) {
	prefix := key + ":"
	for i, have := range d.Lessons {
		if !strings.HasPrefix(have, prefix) {
			continue
		}
		refs := []string{}
		body := have
		if at := strings.LastIndex(have, " ["); at >= 0 && strings.HasSuffix(have, "]") {
			body = have[:at]
			refs = strings.Split(have[at+2:len(have)-1], ", ")
		}
		refs = append(refs, ref)
		if len(refs) > 3 {
			refs = refs[len(refs)-3:]
		}
		d.Lessons[i] = body + " [" + strings.Join(refs, ", ") + "]"
		return
	}
	d.Lessons = append(d.Lessons, fmt.Sprintf("%s %s [%s]", prefix, what, ref))
}

// norm folds case, spacing and punctuation for comparisons.
func norm(s string) string {
	var b strings.Builder
	space := false
	for _, r := range strings.ToLower(s) {
		switch {
		case r >= 'a' && r <= 'z' || r >= '0' && r <= '9':
			if space && b.Len() > 0 {
				b.WriteByte(' ')
			}
			b.WriteRune(r)
			space = false
		default:
			space = true
		}
	}
	return b.String()
}
