package zasm

// The opcode table (Standards Document §14): every instruction by name, with
// its operand count form, number, what it stores, branches on or carries,
// and the versions that have it.

type form uint8

const (
	form0   form = iota // 0OP
	form1               // 1OP
	form2               // 2OP
	formVar             // VAR
	formExt             // EXT (v5+)
)

// opcode describes one instruction in the versions [minV, maxV].
type opcode struct {
	name       string
	form       form
	num        byte
	store      bool // a store byte follows the operands
	branch     bool // branch data follows
	text       bool // an inline Z-string follows (print, print_ret)
	label      bool // the single operand is a label (jump)
	indirect   bool // the first operand names a variable (inc, store, pull, ...)
	minA, maxA int  // operand count
	minV, maxV int
}

const (
	st = 1 << iota
	br
	tx
	lb
	ind
)

func op(name string, f form, num byte, flags, minA, maxA, minV, maxV int) opcode {
	return opcode{
		name: name, form: f, num: num,
		store: flags&st != 0, branch: flags&br != 0, text: flags&tx != 0,
		label: flags&lb != 0, indirect: flags&ind != 0,
		minA: minA, maxA: maxA, minV: minV, maxV: maxV,
	}
}

// opcodes lists each instruction once per version range; aliases share a
// number. lookup picks the first entry whose name and versions match.
var opcodes = []opcode{
	// 2OP
	op("je", form2, 1, br, 2, 4, 1, 8),
	op("jl", form2, 2, br, 2, 2, 1, 8),
	op("jg", form2, 3, br, 2, 2, 1, 8),
	op("dec_chk", form2, 4, br|ind, 2, 2, 1, 8),
	op("inc_chk", form2, 5, br|ind, 2, 2, 1, 8),
	op("jin", form2, 6, br, 2, 2, 1, 8),
	op("test", form2, 7, br, 2, 2, 1, 8),
	op("or", form2, 8, st, 2, 2, 1, 8),
	op("and", form2, 9, st, 2, 2, 1, 8),
	op("test_attr", form2, 10, br, 2, 2, 1, 8),
	op("set_attr", form2, 11, 0, 2, 2, 1, 8),
	op("clear_attr", form2, 12, 0, 2, 2, 1, 8),
	op("store", form2, 13, ind, 2, 2, 1, 8),
	op("insert_obj", form2, 14, 0, 2, 2, 1, 8),
	op("loadw", form2, 15, st, 2, 2, 1, 8),
	op("loadb", form2, 16, st, 2, 2, 1, 8),
	op("get_prop", form2, 17, st, 2, 2, 1, 8),
	op("get_prop_addr", form2, 18, st, 2, 2, 1, 8),
	op("get_next_prop", form2, 19, st, 2, 2, 1, 8),
	op("add", form2, 20, st, 2, 2, 1, 8),
	op("sub", form2, 21, st, 2, 2, 1, 8),
	op("mul", form2, 22, st, 2, 2, 1, 8),
	op("div", form2, 23, st, 2, 2, 1, 8),
	op("mod", form2, 24, st, 2, 2, 1, 8),
	op("call_2s", form2, 25, st, 2, 2, 4, 8),
	op("call_2n", form2, 26, 0, 2, 2, 5, 8),
	op("set_colour", form2, 27, 0, 2, 2, 5, 8),
	op("throw", form2, 28, 0, 2, 2, 5, 8),

	// 1OP
	op("jz", form1, 0, br, 1, 1, 1, 8),
	op("get_sibling", form1, 1, st|br, 1, 1, 1, 8),
	op("get_child", form1, 2, st|br, 1, 1, 1, 8),
	op("get_parent", form1, 3, st, 1, 1, 1, 8),
	op("get_prop_len", form1, 4, st, 1, 1, 1, 8),
	op("inc", form1, 5, ind, 1, 1, 1, 8),
	op("dec", form1, 6, ind, 1, 1, 1, 8),
	op("print_addr", form1, 7, 0, 1, 1, 1, 8),
	op("call_1s", form1, 8, st, 1, 1, 4, 8),
	op("remove_obj", form1, 9, 0, 1, 1, 1, 8),
	op("print_obj", form1, 10, 0, 1, 1, 1, 8),
	op("ret", form1, 11, 0, 1, 1, 1, 8),
	op("jump", form1, 12, lb, 1, 1, 1, 8),
	op("print_paddr", form1, 13, 0, 1, 1, 1, 8),
	op("load", form1, 14, st|ind, 1, 1, 1, 8),
	op("not", form1, 15, st, 1, 1, 1, 4),
	op("call_1n", form1, 15, 0, 1, 1, 5, 8),

	// 0OP
	op("rtrue", form0, 0, 0, 0, 0, 1, 8),
	op("rfalse", form0, 1, 0, 0, 0, 1, 8),
	op("print", form0, 2, tx, 0, 0, 1, 8),
	op("print_ret", form0, 3, tx, 0, 0, 1, 8),
	op("nop", form0, 4, 0, 0, 0, 1, 8),
	op("save", form0, 5, br, 0, 0, 1, 3),
	op("save", form0, 5, st, 0, 0, 4, 4),
	op("restore", form0, 6, br, 0, 0, 1, 3),
	op("restore", form0, 6, st, 0, 0, 4, 4),
	op("restart", form0, 7, 0, 0, 0, 1, 8),
	op("ret_popped", form0, 8, 0, 0, 0, 1, 8),
	op("pop", form0, 9, 0, 0, 0, 1, 4),
	op("catch", form0, 9, st, 0, 0, 5, 8),
	op("quit", form0, 10, 0, 0, 0, 1, 8),
	op("new_line", form0, 11, 0, 0, 0, 1, 8),
	op("show_status", form0, 12, 0, 0, 0, 3, 3),
	op("verify", form0, 13, br, 0, 0, 3, 8),
	op("piracy", form0, 15, br, 0, 0, 5, 8),

	// VAR
	op("call", formVar, 0, st, 1, 4, 1, 8),
	op("call_vs", formVar, 0, st, 1, 4, 1, 8),
	op("storew", formVar, 1, 0, 3, 3, 1, 8),
	op("storeb", formVar, 2, 0, 3, 3, 1, 8),
	op("put_prop", formVar, 3, 0, 3, 3, 1, 8),
	op("sread", formVar, 4, 0, 2, 2, 1, 3),
	op("sread", formVar, 4, 0, 2, 4, 4, 4),
	op("aread", formVar, 4, st, 1, 4, 5, 8),
	op("read", formVar, 4, 0, 2, 2, 1, 3),
	op("read", formVar, 4, 0, 2, 4, 4, 4),
	op("read", formVar, 4, st, 1, 4, 5, 8),
	op("print_char", formVar, 5, 0, 1, 1, 1, 8),
	op("print_num", formVar, 6, 0, 1, 1, 1, 8),
	op("random", formVar, 7, st, 1, 1, 1, 8),
	op("push", formVar, 8, 0, 1, 1, 1, 8),
	op("pull", formVar, 9, ind, 1, 1, 1, 8),
	op("split_window", formVar, 10, 0, 1, 1, 3, 8),
	op("set_window", formVar, 11, 0, 1, 1, 3, 8),
	op("call_vs2", formVar, 12, st, 1, 8, 4, 8),
	op("erase_window", formVar, 13, 0, 1, 1, 4, 8),
	op("erase_line", formVar, 14, 0, 1, 1, 4, 8),
	op("set_cursor", formVar, 15, 0, 2, 2, 4, 8),
	op("get_cursor", formVar, 16, 0, 1, 1, 4, 8),
	op("set_text_style", formVar, 17, 0, 1, 1, 4, 8),
	op("buffer_mode", formVar, 18, 0, 1, 1, 4, 8),
	op("output_stream", formVar, 19, 0, 1, 2, 3, 8),
	op("input_stream", formVar, 20, 0, 1, 1, 3, 8),
	op("sound_effect", formVar, 21, 0, 0, 4, 3, 8),
	op("read_char", formVar, 22, st, 1, 3, 4, 8),
	op("scan_table", formVar, 23, st|br, 3, 4, 4, 8),
	op("not", formVar, 24, st, 1, 1, 5, 8),
	op("call_vn", formVar, 25, 0, 1, 4, 5, 8),
	op("call_vn2", formVar, 26, 0, 1, 8, 5, 8),
	op("tokenise", formVar, 27, 0, 2, 4, 5, 8),
	op("encode_text", formVar, 28, 0, 4, 4, 5, 8),
	op("copy_table", formVar, 29, 0, 3, 3, 5, 8),
	op("print_table", formVar, 30, 0, 2, 4, 5, 8),
	op("check_arg_count", formVar, 31, br, 1, 1, 5, 8),

	// EXT
	op("save", formExt, 0, st, 0, 3, 5, 8),
	op("restore", formExt, 1, st, 0, 3, 5, 8),
	op("log_shift", formExt, 2, st, 2, 2, 5, 8),
	op("art_shift", formExt, 3, st, 2, 2, 5, 8),
	op("set_font", formExt, 4, st, 1, 1, 5, 8),
	op("save_undo", formExt, 9, st, 0, 0, 5, 8),
	op("restore_undo", formExt, 10, st, 0, 0, 5, 8),
	op("print_unicode", formExt, 11, 0, 1, 1, 5, 8),
	op("check_unicode", formExt, 12, st, 1, 1, 5, 8),
	op("set_true_colour", formExt, 13, 0, 2, 2, 5, 8),
}

// lookup finds instruction name in version v. known reports whether the
// name exists in some version.
func lookup(name string, v int) (o *opcode, known bool) {
	for i := range opcodes {
		c := &opcodes[i]
		if c.name != name {
			continue
		}
		known = true
		if v >= c.minV && v <= c.maxV {
			return c, true
		}
	}
	return nil, known
}

// Opcodes lists the instruction names available in version v, in table
// order, each once.
func Opcodes(v int) []string {
	seen := map[string]bool{}
	var out []string
	for _, c := range opcodes {
		if v >= c.minV && v <= c.maxV && !seen[c.name] {
			seen[c.name] = true
			out = append(out, c.name)
		}
	}
	return out
}
