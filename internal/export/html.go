package export

import (
	"fmt"
	"html/template"
	"io"
	"strings"

	"github.com/lantern-if/lantern/managers/mapper"
)

// The HTML export is one file a browser shows as it is: the styles inline,
// the score chart and the map as inline SVG, no script, no link to fetch.

// chart is the score over the turns as SVG coordinates.
type chart struct {
	W, H       int
	Points     string // polyline points
	MaxScore   int
	LastTurn   int
	Left, Base int // the axes' position
	Top, Right int
}

// Chart sizes in SVG units.
const (
	chartW, chartH = 640, 200
	chartMargin    = 36
)

func scoreChart(ep Episode) chart {
	c := chart{W: chartW, H: chartH, Left: chartMargin, Base: chartH - chartMargin/2 - 8, Top: 10, Right: chartW - 10}
	for _, t := range ep.Turns {
		c.MaxScore = max(c.MaxScore, t.Score)
		c.LastTurn = max(c.LastTurn, t.Turn)
	}
	span := max(c.LastTurn, 1)
	top := max(c.MaxScore, 1)
	var pts []string
	for _, t := range ep.Turns {
		x := c.Left + (c.Right-c.Left)*t.Turn/span
		y := c.Base - (c.Base-c.Top)*max(t.Score, 0)/top
		pts = append(pts, fmt.Sprintf("%d,%d", x, y))
	}
	c.Points = strings.Join(pts, " ")
	return c
}

// mapSVG is the map's layout in SVG units.
type mapSVG struct {
	W, H   int
	Rooms  []svgRoom
	Links  []svgLink
	Others []string
}

type svgRoom struct {
	X, Y, W, H int
	TX, TY     int // the name's position
	Name, ID   string
	Current    bool
}

type svgLink struct {
	X1, Y1, X2, Y2 int
	OneWay         bool
}

// Map cell sizes in SVG units.
const (
	cellW, cellH = 170, 64
	boxW, boxH   = 140, 40
)

func mapDrawing(s mapper.Snapshot) mapSVG {
	l := s.Layout(0)
	m := mapSVG{W: max(l.Width*cellW, 1), H: max(l.Height*cellH, 1)}
	centre := func(c mapper.Cell) (int, int) { return c.X*cellW + cellW/2, c.Y*cellH + cellH/2 }
	for _, r := range l.Rooms {
		cx, cy := centre(r.At)
		name := r.Name
		if len([]rune(name)) > 22 {
			name = string([]rune(name)[:21]) + "…"
		}
		m.Rooms = append(m.Rooms, svgRoom{X: cx - boxW/2, Y: cy - boxH/2, W: boxW, H: boxH, TX: cx, TY: cy - 2,
			Name: name, ID: mapper.RoomLabel(r), Current: r.Current})
	}
	for _, k := range l.Links {
		a, _ := l.Room(k.From)
		b, _ := l.Room(k.To)
		x1, y1 := centre(a.At)
		x2, y2 := centre(b.At)
		// End the line at the box's edge so an arrow shows.
		dx, dy := sign(x2-x1), sign(y2-y1)
		m.Links = append(m.Links, svgLink{X1: x1 + dx*boxW/2, Y1: y1 + dy*boxH/2, X2: x2 - dx*boxW/2, Y2: y2 - dy*boxH/2, OneWay: !k.Both})
	}
	for _, line := range strings.Split(strings.TrimSpace(mapper.OtherExits(l, "")), "\n") {
		if line = strings.TrimSpace(line); line != "" && line != "Exits not drawn:" {
			m.Others = append(m.Others, line)
		}
	}
	return m
}

func sign(n int) int {
	switch {
	case n > 0:
		return 1
	case n < 0:
		return -1
	}
	return 0
}

type htmlPage struct {
	Ep     Episode
	Title  string
	Start  string
	Ending string
	Chart  chart
	Map    mapSVG
}

func writeHTML(w io.Writer, ep Episode) error {
	t, err := template.New("episode").Funcs(template.FuncMap{
		"mark":   verdictMark,
		"review": reviewText,
		"score":  func(f float64) string { return fmt.Sprintf("%.2f", f) },
	}).Parse(pageTemplate)
	if err != nil {
		return err
	}
	return t.Execute(w, htmlPage{Ep: ep, Title: ep.title(), Start: stamp(ep), Ending: ep.ending(), Chart: scoreChart(ep), Map: mapDrawing(ep.Map)})
}

const pageTemplate = `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{.Title}} · Lantern</title>
<style>
body { font: 15px/1.45 system-ui, sans-serif; margin: 0 auto; max-width: 60rem; padding: 1.5rem; color: #1d2330; background: #fbfaf6; }
h1 { font-size: 1.6rem; margin: 0 0 .3rem; }
h2 { font-size: 1.2rem; margin-top: 2rem; border-bottom: 2px solid #e4b04a; padding-bottom: .2rem; }
.facts { color: #4a5162; }
.facts span { margin-right: 1.2rem; }
svg { max-width: 100%; height: auto; background: #fff; border: 1px solid #ddd8cc; border-radius: 6px; }
.axis { stroke: #9aa1ae; stroke-width: 1; }
.score { fill: none; stroke: #c9822b; stroke-width: 2.5; }
.room { fill: #f3efe4; stroke: #6d7480; stroke-width: 1.5; }
.room.current { fill: #fde7b0; stroke: #b26b00; stroke-width: 3; }
.name { font: 13px system-ui, sans-serif; text-anchor: middle; fill: #1d2330; }
.rid { font: 10px ui-monospace, monospace; text-anchor: middle; fill: #6d7480; }
.rid.end { text-anchor: end; }
.rid.start { text-anchor: start; }
.link { stroke: #566; stroke-width: 2; }
.turn { border-left: 3px solid #ddd8cc; padding: .2rem 0 .2rem .9rem; margin: 1rem 0; }
.turn.agent { border-color: #6b8fd6; }
.turn.human { border-color: #5fa36a; }
.turn h3 { font-size: 1rem; margin: 0; }
.turn .where { color: #6d7480; font-size: .85rem; }
pre { white-space: pre-wrap; background: #f1efe9; padding: .6rem .8rem; border-radius: 4px; margin: .4rem 0; }
details { margin: .3rem 0; }
.ok { color: #2f7d3c; }
.no { color: #b23b3b; }
ul { margin: .3rem 0; padding-left: 1.3rem; }
</style>
</head>
<body>
<h1>{{.Title}}</h1>
<p class="facts"><span>Started {{.Start}}</span><span>Ending: {{.Ending}}</span><span>Score {{.Ep.Score}} in {{.Ep.Moves}} moves, {{len .Ep.Turns}} turns</span>
{{- if .Ep.Reviews.Decisions}}<span>Reviews: {{.Ep.Reviews.Accepted}} accepted, {{.Ep.Reviews.Edited}} edited, {{.Ep.Reviews.Rejected}} rejected</span>{{end}}</p>

{{if .Ep.Branches}}<h2>Branches</h2>
<ul class="branches">{{range .Ep.Branches}}<li style="margin-left: {{.Depth}}.5rem">{{.Line}}</li>{{end}}</ul>

{{end}}<h2>Score over turns</h2>
<svg id="score-chart" width="{{.Chart.W}}" height="{{.Chart.H}}" viewBox="0 0 {{.Chart.W}} {{.Chart.H}}" role="img" aria-label="Score over turns">
<line class="axis" x1="{{.Chart.Left}}" y1="{{.Chart.Top}}" x2="{{.Chart.Left}}" y2="{{.Chart.Base}}"/>
<line class="axis" x1="{{.Chart.Left}}" y1="{{.Chart.Base}}" x2="{{.Chart.Right}}" y2="{{.Chart.Base}}"/>
<text class="rid start" x="{{.Chart.Left}}" y="{{.Chart.H}}" dy="-6">turn 0</text>
<text class="rid end" x="{{.Chart.Right}}" y="{{.Chart.H}}" dy="-6">turn {{.Chart.LastTurn}}</text>
<text class="rid start" x="4" y="{{.Chart.Top}}" dy="8">{{.Chart.MaxScore}}</text>
{{if .Chart.Points}}<polyline class="score" points="{{.Chart.Points}}"/>{{end}}
</svg>

<h2>Map</h2>
{{if .Map.Rooms}}<svg id="map" width="{{.Map.W}}" height="{{.Map.H}}" viewBox="0 0 {{.Map.W}} {{.Map.H}}" role="img" aria-label="Map">
<defs><marker id="arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" fill="#566"/></marker></defs>
{{range .Map.Links}}<line class="link" x1="{{.X1}}" y1="{{.Y1}}" x2="{{.X2}}" y2="{{.Y2}}"{{if .OneWay}} marker-end="url(#arrow)"{{end}}/>
{{end}}{{range .Map.Rooms}}<g><rect class="room{{if .Current}} current{{end}}" x="{{.X}}" y="{{.Y}}" width="{{.W}}" height="{{.H}}" rx="7"/><text class="name" x="{{.TX}}" y="{{.TY}}">{{.Name}}</text><text class="rid" x="{{.TX}}" y="{{.TY}}" dy="14">{{.ID}}</text></g>
{{end}}</svg>
{{if .Map.Others}}<p>Exits not drawn:</p>
<ul>{{range .Map.Others}}<li>{{.}}</li>{{end}}</ul>{{end}}
{{else}}<p>No rooms recorded.</p>{{end}}

<h2>Transcript</h2>
{{range .Ep.Turns}}<section class="turn {{.Actor}}" id="turn-{{.Turn}}">
<h3>Turn {{.Turn}} · {{.Actor}} › {{.Action}}</h3>
<div class="where">{{.Location}} (L{{.LocationID}}) · score {{.Score}} · moves {{.Moves}}{{if .Failed}} · failed{{end}}{{if .PlayedOn}} · played on {{.PlayedOnLine}} (#{{.PlayedOn}}){{end}}</div>
<pre>{{.Response}}</pre>
{{if .Reasoning}}<details><summary>Reasoning</summary><pre>{{.Reasoning}}</pre></details>{{end}}
{{if .Verdicts}}<div>Critic:<ul>{{range .Verdicts}}<li class="{{if .Accepted}}ok{{else}}no{{end}}">{{mark .}} <code>{{.Action}}</code> {{score .Score}} ({{.Stage}}){{if .Justification}}: {{.Justification}}{{end}}</li>{{end}}</ul></div>{{end}}
{{if .Reviews}}<div>Review:<ul>{{range .Reviews}}<li>{{review .}}</li>{{end}}</ul></div>{{end}}
</section>
{{end}}
<p class="facts">Exported by Lantern {{.Ep.Exported.Format "2006-01-02 15:04 UTC"}}.</p>
</body>
</html>
`
