// Package zasm assembles Z-machine story files from Go.
//
// A Builder collects the parts of a story: objects with attributes,
// properties and short names, dictionary words, global variables, tables,
// packed strings, optional abbreviations, and routines made of instructions.
// Build lays them out in memory (header, abbreviations, object table,
// globals, dynamic tables, then static tables and the dictionary, then
// routines and strings in high memory), resolves every reference and returns
// the story file image with its file length and checksum. Versions 3, 4, 5
// and 8 are supported; the Z-Machine Standards Document 1.0 is the reference.
//
//	b := zasm.New(3)
//	main := b.Routine("main")
//	main.Print("Hello, world!\n")
//	main.Op("quit")
//	b.SetMain(main)
//	story, err := b.Build()
//
// Instructions are named as in the Standards Document §14–15 ("je",
// "get_prop", "print_paddr", "call_vs", ...; "call" and "read" work in every
// version). Operands are Go values: integers become small or large constants
// (Small and Large force one), SP, Var, Routine.Local and *Global name
// variables, and *Routine, *String, *Word, *Table and *Object stand for the
// packed address, byte address or number they will have. Instructions that
// store name their variable with Instr.Store; instructions that branch name
// a label of their routine (or ReturnTrue, ReturnFalse) with Instr.Branch.
// Branch offsets take one byte or two as the distance requires. A routine
// whose end can be reached (its last instruction does not return, jump or
// stop, or a label marks its end) gets an implicit rtrue there.
//
// Misuse never panics. Each mistake (an unknown opcode, wrong operands, a
// missing store or branch, an undefined or duplicate label, a branch out of
// range, too many locals, text with no ZSCII code, a story too large, ...) is
// recorded as an *Error naming the routine and instruction at fault, and
// Build returns them all.
package zasm
