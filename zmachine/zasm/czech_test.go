package zasm_test

// CZECH-style conformance stories built with the assembler: each check is a
// tiny routine exercising one opcode (or one operand form); the story prints
// "ok NAME" or "FAIL NAME: got X, want Y" for each. Every story runs in our
// interpreter and in dfrotz, and both transcripts must agree.

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lantern-if/lantern/sharedtest"
	"github.com/lantern-if/lantern/zmachine"
	"github.com/lantern-if/lantern/zmachine/lineplay"
	"github.com/lantern-if/lantern/zmachine/zasm"
)

type suite struct {
	b      *zasm.Builder
	v      int
	main   *zasm.Routine
	got    *zasm.Global
	checks int
	input  []string // lines the story reads
	expect []string // text the output must contain
}

func newSuite(v int) *suite {
	b := zasm.New(v)
	b.SetRelease(7)
	b.SetSerial("260101")
	s := &suite{b: b, v: v, main: b.Routine("main")}
	s.got = b.Global("got", 0)
	b.SetMain(s.main)
	return s
}

// check calls a routine made by body and compares what it returns with want.
func (s *suite) check(name string, want int, body func(r *zasm.Routine)) {
	s.checks++
	r := s.b.Routine(fmt.Sprintf("check%d", s.checks), "a", "b", "c")
	body(r)
	m := s.main
	m.CallStore(s.got, r)
	pass, next := m.NewLabel("pass"), m.NewLabel("next")
	m.Op("je", s.got, want).Branch(pass, true)
	m.Print("FAIL " + name + ": got ")
	m.Op("print_num", s.got)
	m.Print(fmt.Sprintf(", want %d\n", int16(want)))
	m.Jump(next)
	m.Label(pass)
	m.Print("ok " + name + "\n")
	m.Label(next)
}

// cond checks that a branch instruction branches (or not).
func (s *suite) cond(name string, want bool, op string, args ...any) {
	w := 0
	if want {
		w = 1
	}
	s.check(name, w, func(r *zasm.Routine) {
		r.Op(op, args...).Branch(zasm.ReturnTrue, true)
		r.RFalse()
	})
}

// value checks an instruction that stores.
func (s *suite) value(name string, want int, op string, args ...any) {
	s.check(name, want, func(r *zasm.Routine) {
		r.Op(op, args...).Store(zasm.SP)
		r.Op("ret_popped")
	})
}

func common(s *suite) {
	b := s.b
	sp := zasm.SP
	// Arithmetic with small, large and negative constants.
	s.value("add small", 7, "add", 3, 4)
	s.value("add large", 999, "add", 1000, -1)
	s.value("sub negative", -2, "sub", 5, 7)
	s.value("mul wraps", 60000, "mul", 300, 200)
	s.value("mul signed", -21, "mul", -3, 7)
	s.value("div", 3, "div", 7, 2)
	s.value("div negative", -3, "div", -7, 2)
	s.value("div by negative", -3, "div", 7, -2)
	s.value("mod negative", -1, "mod", -7, 2)
	s.value("mod by negative", 1, "mod", 7, -2)
	s.value("and", 0xf000, "and", 0xf0f0, 0xff00)
	s.value("or", 0xff, "or", 0x0f, 0xf0)
	s.value("not", 0xff00, "not", 0x00ff)

	// Comparisons.
	s.cond("je equal", true, "je", 5, 5)
	s.cond("je of four", true, "je", 5, 1, 2, 5)
	s.cond("je none of four", false, "je", 5, 1, 2, 3)
	s.cond("je large", true, "je", 40000, 40000)
	s.cond("jl signed", true, "jl", -1, 1)
	s.cond("jl false", false, "jl", 1, -1)
	s.cond("jg signed", false, "jg", 40000, 1)
	s.cond("jz", true, "jz", 0)
	s.cond("jz large", false, "jz", 256)
	s.cond("test all bits", true, "test", 0xff, 0x0f)
	s.cond("test missing bits", false, "test", 0x0f, 0xff)

	// Variables: locals, globals, the stack, indirect operands.
	s.check("store and inc local", 6, func(r *zasm.Routine) {
		r.Op("store", r.Local("a"), 5)
		r.Op("inc", r.Local("a"))
		r.Ret(r.Local("a"))
	})
	s.check("dec global below zero", -1, func(r *zasm.Routine) {
		r.Op("store", s.got, 0)
		r.Op("dec", s.got)
		r.Ret(s.got)
	})
	s.check("inc_chk", 1, func(r *zasm.Routine) {
		r.Op("store", r.Local("a"), 5)
		r.Op("inc_chk", r.Local("a"), 5).Branch(zasm.ReturnTrue, true)
		r.RFalse()
	})
	s.check("dec_chk", 4, func(r *zasm.Routine) {
		r.Op("store", r.Local("a"), 5)
		r.Op("dec_chk", r.Local("a"), 5).Branch("yes", true)
		r.Ret(100)
		r.Label("yes")
		r.Ret(r.Local("a"))
	})
	s.check("push pull", 2, func(r *zasm.Routine) {
		r.Op("push", 1)
		r.Op("push", 2)
		r.Op("pull", r.Local("b"))
		r.Op("pull", r.Local("a"))
		r.Op("mul", r.Local("a"), r.Local("b")).Store(sp)
		r.Op("ret_popped")
	})
	s.check("inc on the stack", 4, func(r *zasm.Routine) {
		r.Op("push", 3)
		r.Op("inc", sp)
		r.Op("ret_popped")
	})
	s.check("load indirect", 9, func(r *zasm.Routine) {
		r.Op("store", r.Local("b"), 9)
		r.Op("load", r.Local("b")).Store(r.Local("a"))
		r.Ret(r.Local("a"))
	})
	s.check("stack operand order", 3, func(r *zasm.Routine) {
		r.Op("push", 10)
		r.Op("push", 7)
		r.Op("sub", sp, sp).Store(sp) // pops 7, then 10: 7 - 10
		r.Op("mul", sp, -1).Store(sp)
		r.Op("ret_popped")
	})

	// Calls, arguments, returns.
	add3 := b.Routine("add3", "x", "y", "z")
	add3.Op("add", add3.Local("x"), add3.Local("y")).Store(zasm.SP)
	add3.Op("add", zasm.SP, add3.Local("z")).Store(zasm.SP)
	add3.Op("ret_popped")
	s.check("call with three arguments", 6, func(r *zasm.Routine) {
		r.CallStore(sp, add3, 1, 2, 3)
		r.Op("ret_popped")
	})
	s.check("missing arguments are zero", 3, func(r *zasm.Routine) {
		r.CallStore(sp, add3, 1, 2)
		r.Op("ret_popped")
	})
	fact := b.Routine("fact", "n")
	fact.Op("jg", fact.Local("n"), 1).Branch("rec", true)
	fact.Ret(1)
	fact.Label("rec")
	fact.Op("sub", fact.Local("n"), 1).Store(zasm.SP)
	fact.CallStore(zasm.SP, fact, zasm.SP)
	fact.Op("mul", fact.Local("n"), zasm.SP).Store(zasm.SP)
	fact.Op("ret_popped")
	s.check("recursion", 720, func(r *zasm.Routine) {
		r.CallStore(sp, fact, 6)
		r.Op("ret_popped")
	})
	s.check("call 0 returns 0", 0, func(r *zasm.Routine) {
		r.Op("store", r.Local("a"), 5)
		r.CallStore(r.Local("a"), 0)
		r.Ret(r.Local("a"))
	})
	s.check("call discarding", 21, func(r *zasm.Routine) {
		for i := 0; i < 20; i++ {
			r.Call(add3, 1, 1, 1)
		}
		r.Op("push", 21)
		r.Op("ret_popped")
	})
	s.check("branch returning false", 0, func(r *zasm.Routine) {
		r.Op("jz", 0).Branch(zasm.ReturnFalse, true)
		r.Ret(9)
	})
	s.check("rtrue", 1, func(r *zasm.Routine) { r.RTrue() })
	s.check("backward jump loop", 5050, func(r *zasm.Routine) {
		r.Label("loop")
		r.Op("add", r.Local("b"), r.Local("a")).Store(r.Local("b"))
		r.Op("inc_chk", r.Local("a"), 99).Branch("done", true)
		r.Jump("loop")
		r.Label("done")
		r.Op("add", r.Local("b"), 100).Store(r.Local("b"))
		r.Ret(r.Local("b"))
	})
	s.check("long branches both ways", 3, func(r *zasm.Routine) {
		r.Op("jz", r.Local("a")).Branch("far", true)
		r.Label("back")
		r.Op("inc", r.Local("b"))
		r.Ret(r.Local("b"))
		for i := 0; i < 40; i++ {
			r.Op("store", r.Local("c"), 1000+i)
		}
		r.Label("far")
		r.Op("store", r.Local("b"), 2)
		r.Op("jz", 0).Branch("back", true)
		r.Ret(99)
	})

	// Tables and references.
	tab := b.Table("tab", 16)
	s.check("storew loadw", 0x1234, func(r *zasm.Routine) {
		r.Op("storew", tab, 3, 0x1234)
		r.Op("loadw", tab, 3).Store(sp)
		r.Op("ret_popped")
	})
	s.check("storeb loadb", 0xab, func(r *zasm.Routine) {
		r.Op("storeb", tab, 1, 0xab)
		r.Op("loadb", tab, 1).Store(sp)
		r.Op("ret_popped")
	})
	forty := b.Routine("forty")
	forty.Ret(40)
	refs := b.WordTable("refs", 17, forty)
	s.check("routine address in a table", 40, func(r *zasm.Routine) {
		r.Op("loadw", refs, 1).Store(r.Local("a"))
		r.CallStore(sp, r.Local("a"))
		r.Op("ret_popped")
	})
	rtab := b.WordTable("rtab", 5).Static()
	s.check("static table", 5, func(r *zasm.Routine) {
		r.Op("loadw", rtab, 0).Store(sp)
		r.Op("ret_popped")
	})

	// Objects.
	room := b.Object("Room", nil).Attr(0)
	box := b.Object("box", room).Attr(3, 31).Prop(5, 0x1234).PropBytes(6, 0x56).Prop(7, 1, 2, 3)
	ball := b.Object("red ball", room)
	coin := b.Object("coin", box)
	b.PropDefault(5, 999)
	s.value("get_parent", box.Number(), "get_parent", coin)
	s.check("get_child", room.Number()*100+box.Number(), func(r *zasm.Routine) {
		r.Op("get_child", room).Store(r.Local("a")).Branch("yes", true)
		r.Ret(0)
		r.Label("yes")
		r.Op("mul", room, 100).Store(sp)
		r.Op("add", sp, r.Local("a")).Store(sp)
		r.Op("ret_popped")
	})
	s.check("get_sibling", ball.Number(), func(r *zasm.Routine) {
		r.Op("get_sibling", box).Store(r.Local("a")).Branch(zasm.ReturnFalse, false)
		r.Ret(r.Local("a"))
	})
	s.check("get_sibling of the last", 0, func(r *zasm.Routine) {
		r.Op("get_sibling", ball).Store(r.Local("a")).Branch(zasm.ReturnTrue, true)
		r.Ret(r.Local("a"))
	})
	s.cond("jin", true, "jin", coin, box)
	s.cond("jin not", false, "jin", coin, room)
	s.cond("test_attr 0", true, "test_attr", room, 0)
	s.cond("test_attr 31", true, "test_attr", box, 31)
	s.cond("test_attr unset", false, "test_attr", ball, 3)
	s.check("set_attr clear_attr", 2, func(r *zasm.Routine) {
		r.Op("set_attr", ball, 17)
		r.Op("test_attr", ball, 17).Branch("set", true)
		r.Ret(0)
		r.Label("set")
		r.Op("clear_attr", ball, 17)
		r.Op("test_attr", ball, 17).Branch(zasm.ReturnFalse, true)
		r.Ret(2)
	})
	s.value("get_prop word", 0x1234, "get_prop", box, 5)
	s.value("get_prop byte", 0x56, "get_prop", box, 6)
	s.value("get_prop default", 999, "get_prop", ball, 5)
	s.value("get_prop_addr missing", 0, "get_prop_addr", ball, 5)
	s.check("get_prop_len", 6, func(r *zasm.Routine) {
		r.Op("get_prop_addr", box, 7).Store(sp)
		r.Op("get_prop_len", sp).Store(sp)
		r.Op("ret_popped")
	})
	s.check("property data", 3, func(r *zasm.Routine) {
		r.Op("get_prop_addr", box, 7).Store(sp)
		r.Op("loadw", sp, 2).Store(sp)
		r.Op("ret_popped")
	})
	s.value("get_next_prop first", 7, "get_next_prop", box, 0)
	s.value("get_next_prop next", 6, "get_next_prop", box, 7)
	s.value("get_next_prop last", 0, "get_next_prop", box, 5)
	s.check("put_prop", 77, func(r *zasm.Routine) {
		r.Op("put_prop", box, 5, 77)
		r.Op("get_prop", box, 5).Store(sp)
		r.Op("ret_popped")
	})
	s.check("insert_obj", coin.Number(), func(r *zasm.Routine) {
		r.Op("insert_obj", coin, room)
		r.Op("get_child", room).Store(sp).Branch("x", true)
		r.Label("x")
		r.Op("ret_popped")
	})
	s.check("remove_obj", 0, func(r *zasm.Routine) {
		r.Op("remove_obj", ball)
		r.Op("get_parent", ball).Store(sp)
		r.Op("ret_popped")
	})

	// Output: checked by the transcript.
	hello := b.String("a packed string")
	enc, err := zasm.EncodeString("a string at a byte address")
	if err != nil {
		panic(err)
	}
	raw := b.ByteTable("raw", enc...)
	shout := b.Routine("shout")
	shout.PrintRet("print_ret prints and returns true")
	s.check("printing", 1, func(r *zasm.Routine) {
		r.Op("print_num", -32768)
		r.Op("print_char", ' ')
		r.Op("print_num", 12345)
		r.Op("print_char", 'A')
		r.NewLine()
		r.Op("print_paddr", hello)
		r.NewLine()
		r.Op("print_addr", raw)
		r.NewLine()
		r.Op("print_obj", ball)
		r.NewLine()
		r.Print("The abbreviated text: the rain in the plain, The End.\n")
		r.Print("Punctuation: 0123456789.,!?_#'\"/\\-:() <@> [~] {|}\n")
		r.CallStore(sp, shout)
		r.Op("ret_popped")
	})
	s.expect = append(s.expect, "-32768 12345A", "a packed string", "a string at a byte address", "red ball",
		"The abbreviated text: the rain in the plain, The End.", "print_ret prints and returns true",
		`Punctuation: 0123456789.,!?_#'"/\-:() <@> [~] {|}`)

	// Output stream 3 into a table.
	buf := b.Table("buf", 40)
	s.check("output_stream 3", 5, func(r *zasm.Routine) {
		r.Op("output_stream", 3, buf)
		r.Print("hello")
		r.Op("output_stream", -3)
		r.Op("loadw", buf, 0).Store(sp)
		r.Op("ret_popped")
	})

	// Random numbers: seeded sequences are compared with dfrotz.
	s.check("random", 1, func(r *zasm.Routine) {
		r.Op("random", -7).Store(r.Local("a"))
		for i := 0; i < 5; i++ {
			r.Op("random", 10).Store(sp)
			r.Op("print_num", sp)
			r.Op("print_char", ' ')
		}
		r.NewLine()
		r.Op("random", 0).Store(r.Local("a"))
		r.Op("random", 1).Store(sp)
		r.Op("ret_popped")
	})
	s.cond("verify", true, "verify")

	// Reading a line: the dictionary is sorted and the parse table right.
	open := b.Word("open")
	theBox := b.Word("box")
	comma := b.Word(",")
	b.Word("zebra")
	b.Word("aardvark")
	b.Separators(",.")
	text := b.Table("text", 64)
	parse := b.Table("parse", 2+4*8)
	s.input = append(s.input, "Open the box,box")
	s.check("read and tokenise", 5, func(r *zasm.Routine) {
		r.Op("storeb", text, 0, 60)
		r.Op("storeb", parse, 0, 8)
		r.Print(">")
		if s.v >= 5 {
			r.Op("read", text, parse).Store(r.Local("c"))
		} else {
			r.Op("read", text, parse)
		}
		r.Op("loadb", parse, 1).Store(r.Local("a")) // word count
		r.Op("je", r.Local("a"), 5).Branch("count", true)
		r.Ret(100)
		r.Label("count")
		r.Op("loadw", parse, 1).Store(sp)
		r.Op("je", sp, open).Branch("w1", true)
		r.Ret(101)
		r.Label("w1")
		r.Op("loadw", parse, 3).Store(sp)
		r.Op("jz", sp).Branch("w2", true) // "the" is not in the dictionary
		r.Ret(102)
		r.Label("w2")
		r.Op("loadw", parse, 5).Store(sp)
		r.Op("je", sp, theBox).Branch("w3", true)
		r.Ret(103)
		r.Label("w3")
		r.Op("loadw", parse, 7).Store(sp)
		r.Op("je", sp, comma).Branch("w4", true)
		r.Ret(104)
		r.Label("w4")
		r.Op("loadb", parse, 2+4*2+2).Store(sp) // length of "box"
		r.Op("je", sp, 3).Branch("len", true)
		r.Ret(105)
		r.Label("len")
		r.Ret(r.Local("a"))
	})
}

// advanced adds the checks for version 5 and later.
func advanced(s *suite) {
	b := s.b
	sp := zasm.SP
	twice := b.Routine("twice", "x")
	twice.Op("mul", twice.Local("x"), 2).Store(sp)
	twice.Op("ret_popped")
	s.check("call_1s", 0, func(r *zasm.Routine) {
		r.Op("call_1s", twice).Store(sp)
		r.Op("ret_popped")
	})
	s.check("call_2s", 42, func(r *zasm.Routine) {
		r.Op("call_2s", twice, 21).Store(sp)
		r.Op("ret_popped")
	})
	sum7 := b.Routine("sum7", "a", "b", "c", "d", "e", "f", "g")
	sum7.Op("add", sum7.Local("a"), sum7.Local("b")).Store(sp)
	for _, l := range []string{"c", "d", "e", "f", "g"} {
		sum7.Op("add", sp, sum7.Local(l)).Store(sp)
	}
	sum7.Op("ret_popped")
	s.check("call_vs2 seven arguments", 28, func(r *zasm.Routine) {
		r.CallStore(sp, sum7, 1, 2, 3, 4, 5, 6, 7)
		r.Op("ret_popped")
	})
	side := b.Global("side", 0)
	setSide := b.Routine("set_side", "x")
	setSide.Op("store", side, setSide.Local("x"))
	setSide.RTrue()
	s.check("call_vn", 8, func(r *zasm.Routine) {
		r.Op("call_vn", setSide, 8)
		r.Ret(side)
	})
	s.check("call_2n", 9, func(r *zasm.Routine) {
		r.Op("call_2n", setSide, 9)
		r.Ret(side)
	})
	s.check("call_1n", 0, func(r *zasm.Routine) {
		r.Op("call_1n", setSide)
		r.Ret(side)
	})
	s.check("call_vn2", 11, func(r *zasm.Routine) {
		r.Op("call_vn2", setSide, 11, 1, 2, 3, 4)
		r.Ret(side)
	})
	args := b.Routine("args", "a", "b", "c")
	args.Op("check_arg_count", 3).Branch("three", true)
	args.Op("check_arg_count", 2).Branch("two", true)
	args.Ret(1)
	args.Label("two")
	args.Ret(2)
	args.Label("three")
	args.Ret(3)
	s.check("check_arg_count", 321, func(r *zasm.Routine) {
		r.CallStore(r.Local("a"), args, 1, 1, 1)
		r.Op("mul", r.Local("a"), 100).Store(r.Local("a"))
		r.CallStore(r.Local("b"), args, 1, 1)
		r.Op("mul", r.Local("b"), 10).Store(r.Local("b"))
		r.CallStore(r.Local("c"), args, 1)
		r.Op("add", r.Local("a"), r.Local("b")).Store(sp)
		r.Op("add", sp, r.Local("c")).Store(sp)
		r.Op("ret_popped")
	})
	thrower := b.Routine("thrower", "frame")
	thrower.Op("throw", 55, thrower.Local("frame"))
	thrower.Ret(1)
	catcher := b.Routine("catcher", "f")
	catcher.Op("catch").Store(catcher.Local("f"))
	catcher.Call(thrower, catcher.Local("f"))
	catcher.Ret(2)
	s.check("catch throw", 55, func(r *zasm.Routine) {
		r.CallStore(sp, catcher)
		r.Op("ret_popped")
	})
	s.value("log_shift left", 16, "log_shift", 1, 4)
	s.value("log_shift right", 0x0fff, "log_shift", 0xffff, -4)
	s.value("art_shift right", -4, "art_shift", -16, -2)
	s.value("not (VAR)", 0xfffe, "not", 1)
	s.cond("piracy", true, "piracy")
	data := b.ByteTable("data", 1, 2, 3, 4, 5, 6)
	dst := b.Table("dst", 8)
	s.check("copy_table", 0x0102, func(r *zasm.Routine) {
		r.Op("copy_table", data, dst, 6)
		r.Op("loadw", dst, 0).Store(sp)
		r.Op("ret_popped")
	})
	s.check("copy_table zeroes", 0, func(r *zasm.Routine) {
		r.Op("copy_table", dst, 0, 6)
		r.Op("loadb", dst, 1).Store(sp)
		r.Op("ret_popped")
	})
	s.check("scan_table bytes", 3, func(r *zasm.Routine) {
		r.Op("scan_table", 4, data, 6, 1).Store(r.Local("a")).Branch("found", true)
		r.Ret(100)
		r.Label("found")
		r.Op("sub", r.Local("a"), data).Store(sp)
		r.Op("ret_popped")
	})
	words := b.WordTable("words", 100, 200, 300, 400)
	s.check("scan_table words", 4, func(r *zasm.Routine) {
		r.Op("scan_table", 300, words, 4).Store(r.Local("a")).Branch("found", true)
		r.Ret(100)
		r.Label("found")
		r.Op("sub", r.Local("a"), words).Store(sp)
		r.Op("ret_popped")
	})
	s.check("scan_table missing", 0, func(r *zasm.Routine) {
		r.Op("scan_table", 301, words, 4).Store(r.Local("a")).Branch(zasm.ReturnTrue, true)
		r.Ret(r.Local("a"))
	})
	box := b.Word("box")
	ztext := b.ByteTable("ztext", 20, 3, 'b', 'o', 'x', 0, 0, 0, 0, 0)
	zparse := b.Table("zparse", 2+4*4)
	s.check("tokenise", 1, func(r *zasm.Routine) {
		r.Op("storeb", zparse, 0, 4)
		r.Op("tokenise", ztext, zparse)
		r.Op("loadw", zparse, 1).Store(sp)
		r.Op("je", sp, box).Branch(zasm.ReturnTrue, true)
		r.RFalse()
	})
	coded := b.Table("coded", 6)
	s.check("encode_text", 1, func(r *zasm.Routine) {
		r.Op("encode_text", ztext, 3, 2, coded)
		for i := 0; i < 3; i++ {
			r.Op("loadw", coded, i).Store(r.Local("a"))
			r.Op("loadw", box, i).Store(r.Local("b"))
			r.Op("je", r.Local("a"), r.Local("b")).Branch(r.NewLabel("same"), true)
			r.RFalse()
			r.Label(fmt.Sprintf("same.%d", i+1))
		}
		r.RTrue()
	})
}

// TestOpcodeStories builds the conformance stories for versions 3, 5 and 8
// and runs each in our interpreter and in dfrotz.
func TestOpcodeStories(t *testing.T) {
	for _, v := range []int{3, 5, 8} {
		t.Run(fmt.Sprintf("v%d", v), func(t *testing.T) {
			t.Parallel()
			s := newSuite(v)
			s.b.Abbreviations("the ", "The ", "ain")
			common(s)
			if v >= 5 {
				advanced(s)
			}
			s.main.Print(fmt.Sprintf("done: %d checks\n", s.checks))
			s.main.Op("quit")
			img, err := s.b.Build()
			if err != nil {
				t.Fatal(err)
			}
			got := ours(t, img, s.input)
			if strings.Contains(got, "FAIL") {
				t.Errorf("checks failed in our interpreter:\n%s", got)
			}
			if n := strings.Count(got, "ok "); n != s.checks {
				t.Errorf("%d checks passed, want %d:\n%s", n, s.checks, got)
			}
			for _, e := range append(s.expect, fmt.Sprintf("done: %d checks", s.checks)) {
				if !strings.Contains(got, e) {
					t.Errorf("output lacks %q:\n%s", e, got)
				}
			}
			theirs := dfrotz(t, img, s.input)
			if sharedtest.Fold(got) != sharedtest.Fold(theirs) {
				t.Errorf("our interpreter and dfrotz differ:\nours:\n%s\ndfrotz:\n%s", got, theirs)
			}
			if strings.Contains(theirs, "FAIL") {
				t.Errorf("checks failed in dfrotz:\n%s", theirs)
			}
		})
	}
}

func ours(t *testing.T, img []byte, input []string) string {
	t.Helper()
	story, err := zmachine.LoadStory(img)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	in := strings.NewReader(strings.Join(input, "\n") + "\n")
	if err := lineplay.Run(context.Background(), story, lineplay.Options{Seed: 5, SaveDir: t.TempDir()}, in, &out); err != nil {
		t.Fatalf("our interpreter: %v\n%s", err, out.String())
	}
	return out.String()
}

func dfrotz(t *testing.T, img []byte, input []string) string {
	t.Helper()
	dir := t.TempDir()
	path := filepath.Join(dir, "story.z")
	if err := os.WriteFile(path, img, 0o644); err != nil {
		t.Fatal(err)
	}
	return sharedtest.RunDfrotz(t, dir, path, 5, strings.Join(input, "\n")+"\n")
}
