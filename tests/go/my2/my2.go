// Package my2 mirrors the reference's testdata/my2.go (tests/golden/schemas/my2.go),
// generated with -no-structnames-onwire -unexported: no -1 struct name on the
// wire, and unexported structs and fields are serialized like exported ones.
// Tr.et (an *rbtree.Tree tagged msg:"-", in the schema with Zid -2 and Skip)
// has no Go field here: it is never written.
package my2

import (
	"github.com/tinylib/msgp/msgp"

	"zpeer/wire"
)

// Types are the structs of the schema, by name.
var Types = map[string]func() wire.Record{
	"u":   func() wire.Record { return new(u) },
	"Tr":  func() wire.Record { return new(Tr) },
	"inn": func() wire.Record { return new(inn) },
}

type u struct {
	m map[string]*Tr
	s string
	n int64
}

// AppendZ appends x as a ZebraPack struct map.
func (x *u) AppendZ(o []byte, structNames bool) ([]byte, error) {
	w := wire.NewStruct("u")
	if len(x.m) != 0 {
		wire.Put(w, 0, wire.AppendMap(msgp.AppendString, wire.AppendPointer(wire.AppendStruct[Tr](structNames))), x.m)
	}
	if x.s != "" {
		w.Field(1, msgp.AppendString(nil, x.s))
	}
	if x.n != 0 {
		w.Field(2, msgp.AppendInt64(nil, x.n))
	}
	return w.AppendTo(o, structNames)
}

// UnmarshalZ reads x from the front of b and returns the rest.
func (x *u) UnmarshalZ(b []byte) ([]byte, error) {
	*x = u{}
	return wire.ReadFields(b, "u", func(zid int64, b []byte) (rest []byte, err error) {
		switch zid {
		case 0:
			x.m, rest, err = wire.ReadMap(wire.ReadString, wire.ReadPointer(wire.ReadStruct[Tr]))(b)
		case 1:
			x.s, rest, err = wire.ReadString(b)
		case 2:
			x.n, rest, err = wire.ReadInt[int64](b)
		default:
			rest, err = msgp.Skip(b)
		}
		return rest, err
	})
}

// Tr is exported, with a Skip field between its zids 0 and 1.
type Tr struct {
	U      string
	Nt     int
	Snot   map[string]bool
	Notyet map[string]bool
	Setm   []*inn
}

// AppendZ appends t as a ZebraPack struct map.
func (t *Tr) AppendZ(o []byte, structNames bool) ([]byte, error) {
	w := wire.NewStruct("Tr")
	flags := wire.AppendMap(msgp.AppendString, wire.Infallible(msgp.AppendBool))
	if t.U != "" {
		w.Field(0, msgp.AppendString(nil, t.U))
	}
	if t.Nt != 0 {
		w.Field(1, msgp.AppendInt(nil, t.Nt))
	}
	if len(t.Snot) != 0 {
		wire.Put(w, 2, flags, t.Snot)
	}
	if len(t.Notyet) != 0 {
		wire.Put(w, 3, flags, t.Notyet)
	}
	if len(t.Setm) != 0 {
		wire.Put(w, 4, wire.AppendSlice(wire.AppendPointer(wire.AppendStruct[inn](structNames))), t.Setm)
	}
	return w.AppendTo(o, structNames)
}

// UnmarshalZ reads t from the front of b and returns the rest.
func (t *Tr) UnmarshalZ(b []byte) ([]byte, error) {
	*t = Tr{}
	readFlags := wire.ReadMap(wire.ReadString, wire.ReadBool)
	return wire.ReadFields(b, "Tr", func(zid int64, b []byte) (rest []byte, err error) {
		switch zid {
		case 0:
			t.U, rest, err = wire.ReadString(b)
		case 1:
			t.Nt, rest, err = wire.ReadInt[int](b)
		case 2:
			t.Snot, rest, err = readFlags(b)
		case 3:
			t.Notyet, rest, err = readFlags(b)
		case 4:
			t.Setm, rest, err = wire.ReadSlice(wire.ReadPointer(wire.ReadStruct[inn]))(b)
		default:
			rest, err = msgp.Skip(b)
		}
		return rest, err
	})
}

type inn struct {
	j map[string]bool
	e int64
}

// AppendZ appends x as a ZebraPack struct map.
func (x *inn) AppendZ(o []byte, structNames bool) ([]byte, error) {
	w := wire.NewStruct("inn")
	if len(x.j) != 0 {
		wire.Put(w, 0, wire.AppendMap(msgp.AppendString, wire.Infallible(msgp.AppendBool)), x.j)
	}
	if x.e != 0 {
		w.Field(1, msgp.AppendInt64(nil, x.e))
	}
	return w.AppendTo(o, structNames)
}

// UnmarshalZ reads x from the front of b and returns the rest.
func (x *inn) UnmarshalZ(b []byte) ([]byte, error) {
	*x = inn{}
	return wire.ReadFields(b, "inn", func(zid int64, b []byte) (rest []byte, err error) {
		switch zid {
		case 0:
			x.j, rest, err = wire.ReadMap(wire.ReadString, wire.ReadBool)(b)
		case 1:
			x.e, rest, err = wire.ReadInt[int64](b)
		default:
			rest, err = msgp.Skip(b)
		}
		return rest, err
	})
}
