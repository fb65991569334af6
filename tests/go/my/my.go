// Package my mirrors the reference's testdata/my.go (tests/golden/schemas/my.go)
// with the ZebraPack reader and writer the reference generator produces for
// it (see package zp for the writer's and reader's rules). The Skip field
// S2.A (a struct{}) has no Go field here: it is never written, and a reader
// skips its zid.
package my

import (
	"github.com/tinylib/msgp/msgp"

	"zpeer/wire"
	"zpeer/zp"
)

// ExtensionPrefixSize is the msgp runtime's constant that sizes S2.Arr.
const ExtensionPrefixSize = 6

// Types are the structs of the schema, by name.
var Types = map[string]func() wire.Record{
	"S2":   func() wire.Record { return new(S2) },
	"Tree": func() wire.Record { return new(Tree) },
	"Big":  func() wire.Record { return new(Big) },
	"A":    func() wire.Record { return new(A) },
	"Sys":  func() wire.Record { return new(Sys) },
}

// S2 holds a deprecated field, a showzero field and an array sized by a
// constant of the msgp package.
type S2 struct {
	B      string
	R      map[string]uint8
	P      uint16 // deprecated, still written and read
	Q      uint32
	T      int64 // showzero, which changes nothing on the wire
	Arr    [ExtensionPrefixSize]float64
	MyTree *Tree
}

// AppendZ appends s as a ZebraPack struct map.
func (s *S2) AppendZ(o []byte, structNames bool) ([]byte, error) {
	w := wire.NewStruct("S2")
	if s.B != "" {
		w.Field(1, msgp.AppendString(nil, s.B))
	}
	if len(s.R) != 0 {
		wire.Put(w, 2, wire.AppendMap(msgp.AppendString, wire.Infallible(msgp.AppendUint8)), s.R)
	}
	if s.P != 0 {
		w.Field(3, msgp.AppendUint16(nil, s.P))
	}
	if s.Q != 0 {
		w.Field(4, msgp.AppendUint32(nil, s.Q))
	}
	if s.T != 0 {
		w.Field(5, msgp.AppendInt64(nil, s.T))
	}
	wire.Put(w, 6, wire.AppendSlice(wire.Infallible(msgp.AppendFloat64)), s.Arr[:])
	if s.MyTree != nil {
		wire.Put(w, 7, wire.AppendStruct[Tree](structNames), *s.MyTree)
	}
	return w.AppendTo(o, structNames)
}

// UnmarshalZ reads s from the front of b and returns the rest.
func (s *S2) UnmarshalZ(b []byte) ([]byte, error) {
	*s = S2{}
	return wire.ReadFields(b, "S2", func(zid int64, b []byte) (rest []byte, err error) {
		switch zid {
		case 1:
			s.B, rest, err = wire.ReadString(b)
		case 2:
			s.R, rest, err = wire.ReadMap(wire.ReadString, wire.ReadUint[uint8])(b)
		case 3:
			s.P, rest, err = wire.ReadUint[uint16](b)
		case 4:
			s.Q, rest, err = wire.ReadUint[uint32](b)
		case 5:
			s.T, rest, err = wire.ReadInt[int64](b)
		case 6:
			rest, err = wire.ReadArray(b, s.Arr[:], wire.ReadFloat64)
		case 7:
			s.MyTree, rest, err = wire.ReadPointer(wire.ReadStruct[Tree])(b)
		default: // zid 0 (A, a struct{}) and zids of newer schemas
			rest, err = msgp.Skip(b)
		}
		return rest, err
	})
}

// Tree recurses through a slice of values and, via S2, through pointers.
type Tree struct {
	Chld []Tree
	Str  string
	Par  *S2
}

// AppendZ appends t as a ZebraPack struct map.
func (t *Tree) AppendZ(o []byte, structNames bool) ([]byte, error) {
	w := wire.NewStruct("Tree")
	if len(t.Chld) != 0 {
		wire.Put(w, 0, wire.AppendSlice(wire.AppendStruct[Tree](structNames)), t.Chld)
	}
	if t.Str != "" {
		w.Field(1, msgp.AppendString(nil, t.Str))
	}
	if t.Par != nil {
		wire.Put(w, 2, wire.AppendStruct[S2](structNames), *t.Par)
	}
	return w.AppendTo(o, structNames)
}

// UnmarshalZ reads t from the front of b and returns the rest.
func (t *Tree) UnmarshalZ(b []byte) ([]byte, error) {
	*t = Tree{}
	return wire.ReadFields(b, "Tree", func(zid int64, b []byte) (rest []byte, err error) {
		switch zid {
		case 0:
			t.Chld, rest, err = wire.ReadSlice(wire.ReadStruct[Tree])(b)
		case 1:
			t.Str, rest, err = wire.ReadString(b)
		case 2:
			t.Par, rest, err = wire.ReadPointer(wire.ReadStruct[S2])(b)
		default:
			rest, err = msgp.Skip(b)
		}
		return rest, err
	})
}

// Big holds S2 in containers; every field is tagged showzero.
type Big struct {
	Slice     []S2
	Transform map[int]*S2
	Myptr     *S2
	Myarray   [3]string
	MySlice   []string
}

// AppendZ appends g as a ZebraPack struct map.
func (g *Big) AppendZ(o []byte, structNames bool) ([]byte, error) {
	w := wire.NewStruct("Big")
	s2 := wire.AppendStruct[S2](structNames)
	if len(g.Slice) != 0 {
		wire.Put(w, 0, wire.AppendSlice(s2), g.Slice)
	}
	if len(g.Transform) != 0 {
		wire.Put(w, 1, wire.AppendMap(msgp.AppendInt, wire.AppendPointer(s2)), g.Transform)
	}
	if g.Myptr != nil {
		wire.Put(w, 2, s2, *g.Myptr)
	}
	wire.Put(w, 3, wire.AppendSlice(wire.Infallible(msgp.AppendString)), g.Myarray[:])
	if len(g.MySlice) != 0 {
		wire.Put(w, 4, wire.AppendSlice(wire.Infallible(msgp.AppendString)), g.MySlice)
	}
	return w.AppendTo(o, structNames)
}

// UnmarshalZ reads g from the front of b and returns the rest.
func (g *Big) UnmarshalZ(b []byte) ([]byte, error) {
	*g = Big{}
	readS2 := wire.ReadStruct[S2]
	return wire.ReadFields(b, "Big", func(zid int64, b []byte) (rest []byte, err error) {
		switch zid {
		case 0:
			g.Slice, rest, err = wire.ReadSlice(readS2)(b)
		case 1:
			g.Transform, rest, err = wire.ReadMap(wire.ReadInt[int], wire.ReadPointer(readS2))(b)
		case 2:
			g.Myptr, rest, err = wire.ReadPointer(readS2)(b)
		case 3:
			rest, err = wire.ReadArray(b, g.Myarray[:], wire.ReadString)
		case 4:
			g.MySlice, rest, err = wire.ReadSlice(wire.ReadString)(b)
		default:
			rest, err = msgp.Skip(b)
		}
		return rest, err
	})
}

// A is zp.A (tests/vectors/schemas/zp.go): the same struct with msgp tag
// names, which ZebraPack does not put on the wire.
type A = zp.A

// Sys holds one interface{} value: Go's dynamic type of every number is in
// its wire family (int64 or uint64, float32 or float64, complex64 or
// complex128), and the reader gives it back by that family.
type Sys struct {
	F any
}

// AppendZ appends s as a ZebraPack struct map. An interface{} is never
// empty to the reference: a nil F is written as nil.
func (s *Sys) AppendZ(o []byte, structNames bool) ([]byte, error) {
	w := wire.NewStruct("Sys")
	wire.Put(w, 0, wire.AppendIntf, s.F)
	return w.AppendTo(o, structNames)
}

// UnmarshalZ reads s from the front of b and returns the rest.
func (s *Sys) UnmarshalZ(b []byte) ([]byte, error) {
	*s = Sys{}
	return wire.ReadFields(b, "Sys", func(zid int64, b []byte) (rest []byte, err error) {
		switch zid {
		case 0:
			s.F, rest, err = wire.ReadIntf(b)
		default:
			rest, err = msgp.Skip(b)
		}
		return rest, err
	})
}
