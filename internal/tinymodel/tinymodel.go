// Package tinymodel writes a tiny llama-architecture model as a GGUF v3 file
// with random weights, for end-to-end tests against a real Ollama server.
//
// The model knows nothing: its replies are noise. It is useful because it is
// small (about 0.5 MB), loads in a fraction of a second on a CPU, and goes
// through the same code paths as a real model: the chat template, streaming,
// grammar-constrained structured output (a JSON schema in `format`), tool
// call parsing and thinking. The same seed always gives the same bytes.
//
// The vocabulary is SentencePiece-style (tokenizer.ggml.model "llama"):
// <unk>, <s> and </s>, the 256 byte tokens <0x00>..<0xFF>, and one token for
// each printable ASCII character, with the space spelled "▁" (U+2581) as
// SentencePiece does. Every tensor is F32.
//
// The weights are uniform random but for one channel: dimension 0 of the
// residual stream is a constant (every token embedding holds BiasChannelValue
// there and no layer writes to it), so column 0 of output.weight acts as a
// per-token bias. That bias pushes down every token that is not a printable
// ASCII character: <unk>, <s>, the byte tokens, and </s>. So replies are
// printable ASCII (one token per character, which keeps grammar-constrained
// JSON short), and a reply without a `format` never ends by itself: it runs
// to num_predict (always set it). Under a grammar, </s> is still taken
// as soon as the grammar allows nothing else.
package tinymodel

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
)

// The model's shape.
const (
	Architecture      = "llama"
	Name              = "lantern-tiny"
	EmbeddingLength   = 64
	BlockCount        = 2
	HeadCount         = 4
	HeadCountKV       = 4
	HeadDim           = EmbeddingLength / HeadCount
	FeedForwardLength = 128
	ContextLength     = 8192
	RMSEpsilon        = 1e-5
	RopeFreqBase      = 10000
	// Alignment is the GGUF alignment of the tensor data, in bytes.
	Alignment = 32

	// BiasChannelValue is the constant that every token embedding holds in
	// dimension 0; SuppressedBias is the weight of that dimension in
	// output.weight for the tokens that are pushed down.
	BiasChannelValue = 4
	SuppressedBias   = -2
)

// Special token ids.
const (
	UnknownID = 0
	BOSID     = 1
	EOSID     = 2
	// FirstByteID is the id of <0x00>; byte b has id FirstByteID+b.
	FirstByteID = 3
	// FirstCharID is the id of the first printable ASCII token ("▁").
	FirstCharID = FirstByteID + 256
)

// Token types as GGUF stores them in tokenizer.ggml.token_type.
const (
	TokenNormal  int32 = 1
	TokenUnknown int32 = 2
	TokenControl int32 = 3
	TokenByte    int32 = 6
)

// spaceMark is how SentencePiece spells a space inside a piece.
const spaceMark = "\u2581"

// Vocabulary returns the tokens, their scores and their types, indexed by
// token id.
func Vocabulary() (tokens []string, scores []float32, types []int32) {
	add := func(tok string, score float32, typ int32) {
		tokens = append(tokens, tok)
		scores = append(scores, score)
		types = append(types, typ)
	}
	add("<unk>", 0, TokenUnknown)
	add("<s>", 0, TokenControl)
	add("</s>", 0, TokenControl)
	for b := 0; b < 256; b++ {
		add(fmt.Sprintf("<0x%02X>", b), 0, TokenByte)
	}
	for c := byte(' '); c <= '~'; c++ {
		tok := string(rune(c))
		if c == ' ' {
			tok = spaceMark
		}
		// Lower scores for later pieces, as a trained SentencePiece model
		// ranks rarer pieces lower; with single characters only the
		// tokenizer never merges, so the values only need to be distinct.
		add(tok, -float32(len(tokens)-FirstCharID+1), TokenNormal)
	}
	return tokens, scores, types
}

// VocabSize is the number of tokens in the vocabulary.
const VocabSize = FirstCharID + ('~' - ' ' + 1)

// GGUF metadata value types.
const (
	ggufUint32  uint32 = 4
	ggufInt32   uint32 = 5
	ggufFloat32 uint32 = 6
	ggufBool    uint32 = 7
	ggufString  uint32 = 8
	ggufArray   uint32 = 9
)

// ggmlTypeF32 is the tensor type of 32-bit floats.
const ggmlTypeF32 uint32 = 0

// kv is one metadata entry; value is uint32, int32, float32, bool, string,
// []string, []float32 or []int32.
type kv struct {
	key   string
	value any
}

// tensor is one tensor to write: its GGUF dimensions (the fastest-varying
// first) and how to fill it.
type tensor struct {
	name string
	dims []uint64
	// scale is the half-width of the uniform distribution the weights are
	// drawn from; 0 means all ones (the norms).
	scale float64
	// shape, when set, adjusts the random weights afterwards.
	shape func(w []float32)
}

// A weight matrix with GGUF dimensions [in, out] holds out rows of in
// values; output j of the product is row j times the input.

// setColumn0 sets element 0 of each row of width in to value(row).
func setColumn0(in int, value func(row int) float32) func([]float32) {
	return func(w []float32) {
		for r := 0; r*in < len(w); r++ {
			w[r*in] = value(r)
		}
	}
}

// zeroRow0 keeps a layer from writing to residual dimension 0.
func zeroRow0(in int) func([]float32) {
	return func(w []float32) { clear(w[:in]) }
}

// outputBias is column 0 of output.weight for token id: SuppressedBias for
// every token that is not a printable ASCII character, else 0.
func outputBias(id int) float32 {
	if id < FirstCharID {
		return SuppressedBias
	}
	return 0
}

func (t tensor) elements() uint64 {
	n := uint64(1)
	for _, d := range t.dims {
		n *= d
	}
	return n
}

func metadata() []kv {
	tokens, scores, types := Vocabulary()
	a := Architecture + "."
	return []kv{
		{"general.architecture", Architecture},
		{"general.name", Name},
		{"general.file_type", uint32(0)}, // all F32
		{"general.quantization_version", uint32(2)},
		{"general.alignment", uint32(Alignment)},
		{a + "vocab_size", uint32(VocabSize)},
		{a + "context_length", uint32(ContextLength)},
		{a + "embedding_length", uint32(EmbeddingLength)},
		{a + "block_count", uint32(BlockCount)},
		{a + "feed_forward_length", uint32(FeedForwardLength)},
		{a + "attention.head_count", uint32(HeadCount)},
		{a + "attention.head_count_kv", uint32(HeadCountKV)},
		{a + "attention.layer_norm_rms_epsilon", float32(RMSEpsilon)},
		{a + "rope.dimension_count", uint32(HeadDim)},
		{a + "rope.freq_base", float32(RopeFreqBase)},
		{"tokenizer.ggml.model", "llama"},
		{"tokenizer.ggml.tokens", tokens},
		{"tokenizer.ggml.scores", scores},
		{"tokenizer.ggml.token_type", types},
		{"tokenizer.ggml.bos_token_id", uint32(BOSID)},
		{"tokenizer.ggml.eos_token_id", uint32(EOSID)},
		{"tokenizer.ggml.unknown_token_id", uint32(UnknownID)},
		{"tokenizer.ggml.add_bos_token", true},
		{"tokenizer.ggml.add_eos_token", false},
	}
}

func tensors() []tensor {
	const e, f, v = EmbeddingLength, FeedForwardLength, VocabSize
	kvDim := uint64(HeadDim * HeadCountKV)
	in := func(n uint64) float64 { return 1 / math.Sqrt(float64(n)) }
	ts := []tensor{{
		name: "token_embd.weight", dims: []uint64{e, v}, scale: 1,
		shape: setColumn0(e, func(int) float32 { return BiasChannelValue }),
	}}
	for i := 0; i < BlockCount; i++ {
		p := fmt.Sprintf("blk.%d.", i)
		ts = append(ts,
			tensor{name: p + "attn_norm.weight", dims: []uint64{e}},
			tensor{name: p + "attn_q.weight", dims: []uint64{e, e}, scale: in(e)},
			tensor{name: p + "attn_k.weight", dims: []uint64{e, kvDim}, scale: in(e)},
			tensor{name: p + "attn_v.weight", dims: []uint64{e, kvDim}, scale: in(e)},
			tensor{name: p + "attn_output.weight", dims: []uint64{e, e}, scale: in(e), shape: zeroRow0(e)},
			tensor{name: p + "ffn_norm.weight", dims: []uint64{e}},
			tensor{name: p + "ffn_gate.weight", dims: []uint64{e, f}, scale: in(e)},
			tensor{name: p + "ffn_up.weight", dims: []uint64{e, f}, scale: in(e)},
			tensor{name: p + "ffn_down.weight", dims: []uint64{f, e}, scale: in(f), shape: zeroRow0(f)},
		)
	}
	return append(ts,
		tensor{name: "output_norm.weight", dims: []uint64{e}},
		tensor{name: "output.weight", dims: []uint64{e, v}, scale: in(e), shape: setColumn0(e, outputBias)},
	)
}

// Write writes the model as GGUF v3 to w. The weights are drawn from a
// generator seeded with seed, so the same seed gives the same file.
func Write(w io.Writer, seed int64) error {
	bw := bufio.NewWriterSize(w, 64<<10)
	enc := &encoder{w: bw}

	meta := metadata()
	ts := tensors()

	enc.raw([]byte("GGUF"))
	enc.u32(3)
	enc.u64(uint64(len(ts)))
	enc.u64(uint64(len(meta)))
	for _, m := range meta {
		enc.str(m.key)
		enc.value(m.value)
	}

	var offset uint64
	for _, t := range ts {
		enc.str(t.name)
		enc.u32(uint32(len(t.dims)))
		for _, d := range t.dims {
			enc.u64(d)
		}
		enc.u32(ggmlTypeF32)
		enc.u64(offset)
		offset = alignUp(offset + 4*t.elements())
	}
	enc.pad()

	rng := rand.New(rand.NewPCG(uint64(seed), 0x6c616e7465726e)) // "lantern"
	for _, t := range ts {
		w := make([]float32, t.elements())
		for i := range w {
			w[i] = 1
			if t.scale != 0 {
				w[i] = float32((2*rng.Float64() - 1) * t.scale)
			}
		}
		if t.shape != nil {
			t.shape(w)
		}
		for _, x := range w {
			enc.u32(math.Float32bits(x))
		}
		enc.pad()
	}
	if enc.err != nil {
		return fmt.Errorf("tinymodel: write: %w", enc.err)
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("tinymodel: write: %w", err)
	}
	return nil
}

func alignUp(n uint64) uint64 {
	return (n + Alignment - 1) / Alignment * Alignment
}

// encoder writes little-endian GGUF values and keeps the first error.
type encoder struct {
	w   io.Writer
	n   uint64
	err error
	buf [8]byte
}

func (e *encoder) raw(p []byte) {
	if e.err != nil {
		return
	}
	var k int
	k, e.err = e.w.Write(p)
	e.n += uint64(k)
}

func (e *encoder) u32(v uint32) {
	binary.LittleEndian.PutUint32(e.buf[:4], v)
	e.raw(e.buf[:4])
}

func (e *encoder) u64(v uint64) {
	binary.LittleEndian.PutUint64(e.buf[:8], v)
	e.raw(e.buf[:8])
}

func (e *encoder) str(s string) {
	e.u64(uint64(len(s)))
	e.raw([]byte(s))
}

// pad writes zero bytes up to the next multiple of Alignment.
func (e *encoder) pad() {
	var zero [Alignment]byte
	e.raw(zero[:alignUp(e.n)-e.n])
}

func (e *encoder) value(v any) {
	switch v := v.(type) {
	case uint32:
		e.u32(ggufUint32)
		e.u32(v)
	case int32:
		e.u32(ggufInt32)
		e.u32(uint32(v))
	case float32:
		e.u32(ggufFloat32)
		e.u32(math.Float32bits(v))
	case bool:
		e.u32(ggufBool)
		b := byte(0)
		if v {
			b = 1
		}
		e.raw([]byte{b})
	case string:
		e.u32(ggufString)
		e.str(v)
	case []string:
		e.u32(ggufArray)
		e.u32(ggufString)
		e.u64(uint64(len(v)))
		for _, s := range v {
			e.str(s)
		}
	case []float32:
		e.u32(ggufArray)
		e.u32(ggufFloat32)
		e.u64(uint64(len(v)))
		for _, f := range v {
			e.u32(math.Float32bits(f))
		}
	case []int32:
		e.u32(ggufArray)
		e.u32(ggufInt32)
		e.u64(uint64(len(v)))
		for _, i := range v {
			e.u32(uint32(i))
		}
	default:
		if e.err == nil {
			e.err = fmt.Errorf("unsupported metadata value %T", v)
		}
	}
}
