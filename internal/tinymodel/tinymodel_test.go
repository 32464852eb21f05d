package tinymodel

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"
)

// gguf is what readGGUF found in a file.
type gguf struct {
	version  uint32
	meta     map[string]any
	order    []string
	tensors  []tensorInfo
	dataBase uint64
	size     int
}

type tensorInfo struct {
	name   string
	dims   []uint64
	typ    uint32
	offset uint64
}

// reader decodes GGUF values independently of the encoder under test.
type reader struct {
	b   []byte
	pos int
	err error
}

func (r *reader) take(n int) []byte {
	if r.err != nil {
		return make([]byte, n)
	}
	if n < 0 || r.pos+n > len(r.b) {
		r.err = fmt.Errorf("short read of %d bytes at %d", n, r.pos)
		return make([]byte, max(n, 0))
	}
	p := r.b[r.pos : r.pos+n]
	r.pos += n
	return p
}

func (r *reader) u32() uint32 { return binary.LittleEndian.Uint32(r.take(4)) }
func (r *reader) u64() uint64 { return binary.LittleEndian.Uint64(r.take(8)) }
func (r *reader) str() string { return string(r.take(int(r.u64()))) }

func (r *reader) scalar(typ uint32) any {
	switch typ {
	case ggufUint32:
		return r.u32()
	case ggufInt32:
		return int32(r.u32())
	case ggufFloat32:
		return math.Float32frombits(r.u32())
	case ggufBool:
		return r.take(1)[0] != 0
	case ggufString:
		return r.str()
	}
	r.err = fmt.Errorf("unexpected value type %d", typ)
	return nil
}

func (r *reader) value() any {
	typ := r.u32()
	if typ != ggufArray {
		return r.scalar(typ)
	}
	elem := r.u32()
	n := r.u64()
	if n > uint64(len(r.b)) {
		r.err = fmt.Errorf("array of %d elements", n)
		return nil
	}
	out := make([]any, 0, n)
	for i := uint64(0); i < n && r.err == nil; i++ {
		out = append(out, r.scalar(elem))
	}
	return out
}

func readGGUF(b []byte) (*gguf, error) {
	r := &reader{b: b}
	if string(r.take(4)) != "GGUF" {
		return nil, errors.New("bad magic")
	}
	g := &gguf{meta: map[string]any{}, size: len(b)}
	g.version = r.u32()
	nt, nkv := r.u64(), r.u64()
	for i := uint64(0); i < nkv && r.err == nil; i++ {
		k := r.str()
		if _, dup := g.meta[k]; dup {
			return nil, fmt.Errorf("duplicate key %q", k)
		}
		g.meta[k] = r.value()
		g.order = append(g.order, k)
	}
	for i := uint64(0); i < nt && r.err == nil; i++ {
		t := tensorInfo{name: r.str()}
		nd := r.u32()
		for j := uint32(0); j < nd && r.err == nil; j++ {
			t.dims = append(t.dims, r.u64())
		}
		t.typ = r.u32()
		t.offset = r.u64()
		g.tensors = append(g.tensors, t)
	}
	if r.err != nil {
		return nil, r.err
	}
	g.dataBase = alignUp(uint64(r.pos))
	for _, p := range b[r.pos:g.dataBase] {
		if p != 0 {
			return nil, errors.New("non-zero padding before tensor data")
		}
	}
	return g, nil
}

func (g *gguf) tensor(b []byte, name string) []float32 {
	for _, t := range g.tensors {
		if t.name != name {
			continue
		}
		n := uint64(1)
		for _, d := range t.dims {
			n *= d
		}
		start := g.dataBase + t.offset
		out := make([]float32, n)
		for i := range out {
			out[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[start+4*uint64(i):]))
		}
		return out
	}
	return nil
}

func write(t *testing.T, seed int64) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := Write(&buf, seed); err != nil {
		t.Fatalf("Write: %v", err)
	}
	return buf.Bytes()
}

func TestWriteIsDeterministic(t *testing.T) {
	a, b := write(t, 1), write(t, 1)
	if !bytes.Equal(a, b) {
		t.Fatal("two writes with seed 1 differ")
	}
	c := write(t, 2)
	if len(c) != len(a) {
		t.Fatalf("seed 2 gives %d bytes, seed 1 %d", len(c), len(a))
	}
	if bytes.Equal(a, c) {
		t.Fatal("seeds 1 and 2 give the same bytes")
	}
	// The header, metadata and tensor infos do not depend on the seed.
	g, err := readGGUF(a)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a[:g.dataBase], c[:g.dataBase]) {
		t.Fatal("the part before the tensor data depends on the seed")
	}
}

// TestWriteGolden pins the bytes for seed 0: the end-to-end tests rely on
// the same seed giving the same model on every machine and Go version.
func TestWriteGolden(t *testing.T) {
	const want = "65228b05dbacaa5b5af277c28f3be8ca7d21ad410a93d96c00b64365ff436a95"
	got := fmt.Sprintf("%x", sha256.Sum256(write(t, 0)))
	if got != want {
		t.Errorf("sha256 of the seed 0 model = %s, want %s", got, want)
	}
}

func TestMetadata(t *testing.T) {
	b := write(t, 0)
	g, err := readGGUF(b)
	if err != nil {
		t.Fatal(err)
	}
	if g.version != 3 {
		t.Errorf("version %d, want 3", g.version)
	}
	if g.order[0] != "general.architecture" {
		t.Errorf("first key %q, want general.architecture", g.order[0])
	}
	want := map[string]any{
		"general.architecture":                   "llama",
		"general.file_type":                      uint32(0),
		"general.alignment":                      uint32(32),
		"llama.context_length":                   uint32(ContextLength),
		"llama.embedding_length":                 uint32(64),
		"llama.block_count":                      uint32(2),
		"llama.feed_forward_length":              uint32(128),
		"llama.attention.head_count":             uint32(4),
		"llama.attention.head_count_kv":          uint32(4),
		"llama.attention.layer_norm_rms_epsilon": float32(1e-5),
		"llama.rope.dimension_count":             uint32(16),
		"llama.vocab_size":                       uint32(VocabSize),
		"tokenizer.ggml.model":                   "llama",
		"tokenizer.ggml.bos_token_id":            uint32(1),
		"tokenizer.ggml.eos_token_id":            uint32(2),
		"tokenizer.ggml.unknown_token_id":        uint32(0),
		"tokenizer.ggml.add_bos_token":           true,
		"tokenizer.ggml.add_eos_token":           false,
	}
	for k, v := range want {
		if got, ok := g.meta[k]; !ok || got != v {
			t.Errorf("%s = %#v (present %v), want %#v", k, got, ok, v)
		}
	}
	for _, k := range []string{"tokenizer.ggml.tokens", "tokenizer.ggml.scores", "tokenizer.ggml.token_type"} {
		arr, ok := g.meta[k].([]any)
		if !ok || len(arr) != VocabSize {
			t.Errorf("%s: %d entries (array %v), want %d", k, len(arr), ok, VocabSize)
		}
	}
	toks, _ := g.meta["tokenizer.ggml.tokens"].([]any)
	if len(toks) == VocabSize {
		for id, want := range map[int]string{0: "<unk>", 1: "<s>", 2: "</s>", 3: "<0x00>", 3 + 0x0A: "<0x0A>", 258: "<0xFF>", 259: "\u2581", 260: "!", VocabSize - 1: "~"} {
			if toks[id] != want {
				t.Errorf("token %d = %q, want %q", id, toks[id], want)
			}
		}
	}
}

func TestVocabulary(t *testing.T) {
	tokens, scores, types := Vocabulary()
	if len(tokens) != VocabSize || len(scores) != VocabSize || len(types) != VocabSize {
		t.Fatalf("lengths %d/%d/%d, want %d", len(tokens), len(scores), len(types), VocabSize)
	}
	if VocabSize != 3+256+95 {
		t.Errorf("VocabSize %d, want 354", VocabSize)
	}
	seen := map[string]int{}
	for id, tok := range tokens {
		if prev, dup := seen[tok]; dup {
			t.Errorf("token %q at %d and %d", tok, prev, id)
		}
		seen[tok] = id
		var want int32
		switch {
		case id == UnknownID:
			want = TokenUnknown
		case id == BOSID || id == EOSID:
			want = TokenControl
		case id < FirstCharID:
			want = TokenByte
			if tok != fmt.Sprintf("<0x%02X>", id-FirstByteID) {
				t.Errorf("byte token %d = %q", id, tok)
			}
		default:
			want = TokenNormal
			if strings.Contains(tok, " ") || len([]rune(tok)) != 1 {
				t.Errorf("normal token %d = %q, want one character and no space", id, tok)
			}
		}
		if types[id] != want {
			t.Errorf("token %d %q has type %d, want %d", id, tok, types[id], want)
		}
	}
	for c := byte('!'); c <= '~'; c++ {
		if _, ok := seen[string(rune(c))]; !ok {
			t.Errorf("printable %q missing", c)
		}
	}
}

func TestTensors(t *testing.T) {
	b := write(t, 7)
	g, err := readGGUF(b)
	if err != nil {
		t.Fatal(err)
	}
	shapes := map[string][]uint64{
		"token_embd.weight":  {64, VocabSize},
		"output_norm.weight": {64},
		"output.weight":      {64, VocabSize},
	}
	for i := 0; i < 2; i++ {
		p := fmt.Sprintf("blk.%d.", i)
		for name, dims := range map[string][]uint64{
			"attn_norm.weight": {64}, "ffn_norm.weight": {64},
			"attn_q.weight": {64, 64}, "attn_k.weight": {64, 64},
			"attn_v.weight": {64, 64}, "attn_output.weight": {64, 64},
			"ffn_gate.weight": {64, 128}, "ffn_up.weight": {64, 128},
			"ffn_down.weight": {128, 64},
		} {
			shapes[p+name] = dims
		}
	}
	if len(g.tensors) != len(shapes) {
		t.Errorf("%d tensors, want %d", len(g.tensors), len(shapes))
	}
	var end uint64
	for _, ti := range g.tensors {
		want, ok := shapes[ti.name]
		if !ok {
			t.Errorf("unexpected tensor %q", ti.name)
			continue
		}
		if fmt.Sprint(ti.dims) != fmt.Sprint(want) {
			t.Errorf("%s dims %v, want %v", ti.name, ti.dims, want)
		}
		if ti.typ != 0 {
			t.Errorf("%s type %d, want F32", ti.name, ti.typ)
		}
		if ti.offset%Alignment != 0 {
			t.Errorf("%s offset %d not aligned", ti.name, ti.offset)
		}
		if ti.offset < end {
			t.Errorf("%s offset %d overlaps the previous tensor ending at %d", ti.name, ti.offset, end)
		}
		n := uint64(4)
		for _, d := range ti.dims {
			n *= d
		}
		end = ti.offset + n
	}
	if total := g.dataBase + alignUp(end); total != uint64(g.size) {
		t.Errorf("file is %d bytes, tensor data ends at %d", g.size, total)
	}
	if g.size < 400_000 || g.size > 700_000 {
		t.Errorf("file is %d bytes, want about 0.5 MB", g.size)
	}

	for _, ti := range g.tensors {
		w := g.tensor(b, ti.name)
		in := int(ti.dims[0])
		norm := strings.HasSuffix(ti.name, "norm.weight")
		writesResidual := strings.HasSuffix(ti.name, "attn_output.weight") || strings.HasSuffix(ti.name, "ffn_down.weight")
		var zeros int
		for i, x := range w {
			row, col := i/in, i%in
			switch {
			case math.IsNaN(float64(x)) || math.IsInf(float64(x), 0):
				t.Fatalf("%s[%d] holds %v", ti.name, i, x)
			case norm:
				if x != 1 {
					t.Fatalf("norm %s[%d] = %v, want 1", ti.name, i, x)
				}
			case ti.name == "token_embd.weight" && col == 0:
				if x != BiasChannelValue {
					t.Fatalf("embedding of token %d holds %v in the bias channel, want %v", row, x, BiasChannelValue)
				}
			case writesResidual && row == 0:
				if x != 0 {
					t.Fatalf("%s writes %v to the bias channel", ti.name, x)
				}
			case ti.name == "output.weight" && col == 0:
				want := float32(0)
				if row < FirstCharID {
					want = SuppressedBias
				}
				if x != want {
					t.Fatalf("output bias of token %d = %v, want %v", row, x, want)
				}
			default:
				if math.Abs(float64(x)) > 1 {
					t.Fatalf("%s[%d] = %v, outside [-1, 1]", ti.name, i, x)
				}
				if x == 0 {
					zeros++
				}
			}
		}
		if !norm && zeros > len(w)/100 {
			t.Errorf("%s has %d zeros of %d", ti.name, zeros, len(w))
		}
	}
}

type failWriter struct{ after int }

func (f *failWriter) Write(p []byte) (int, error) {
	if len(p) > f.after {
		n := f.after
		f.after = 0
		return n, errors.New("disk full")
	}
	f.after -= len(p)
	return len(p), nil
}

func TestWriteReportsErrors(t *testing.T) {
	for _, after := range []int{0, 10, 100_000, 400_000} {
		err := Write(&failWriter{after: after}, 0)
		if err == nil || !strings.Contains(err.Error(), "disk full") {
			t.Errorf("failing after %d bytes: err = %v, want disk full", after, err)
		}
	}
}

func BenchmarkWrite(b *testing.B) {
	var buf bytes.Buffer
	for b.Loop() {
		buf.Reset()
		if err := Write(&buf, 0); err != nil {
			b.Fatal(err)
		}
	}
}
