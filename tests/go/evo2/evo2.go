// Package evo2 mirrors tests/vectors/schemas/evo2.go, the second version of
// Person: zid 1 (Age) is retired and zids 3 and 4 are new (see package zp for
// the writer's and reader's rules).
package evo2

import (
	"github.com/tinylib/msgp/msgp"

	"zpeer/wire"
)

// Person is the second version of the evolving struct. Age (zid 1) became
// a deprecated struct{}: a Skip field, never written, skipped when read.
type Person struct {
	Name  string
	Email string
	Tags  []string
	Score uint64
}

// AppendZ appends p as a ZebraPack struct map.
func (p *Person) AppendZ(o []byte, structNames bool) ([]byte, error) {
	w := wire.NewStruct("Person")
	if p.Name != "" {
		w.Field(0, msgp.AppendString(nil, p.Name))
	}
	if p.Email != "" {
		w.Field(2, msgp.AppendString(nil, p.Email))
	}
	if len(p.Tags) != 0 {
		wire.Put(w, 3, wire.AppendSlice(wire.Infallible(msgp.AppendString)), p.Tags)
	}
	if p.Score != 0 {
		w.Field(4, msgp.AppendUint64(nil, p.Score))
	}
	return w.AppendTo(o, structNames)
}

// UnmarshalZ reads p from the front of b and returns the rest.
func (p *Person) UnmarshalZ(b []byte) ([]byte, error) {
	*p = Person{}
	return wire.ReadFields(b, "Person", func(zid int64, b []byte) (rest []byte, err error) {
		switch zid {
		case 0:
			p.Name, rest, err = wire.ReadString(b)
		case 2:
			p.Email, rest, err = wire.ReadString(b)
		case 3:
			p.Tags, rest, err = wire.ReadSlice(wire.ReadString)(b)
		case 4:
			p.Score, rest, err = wire.ReadUint[uint64](b)
		default: // zid 1, retired, and zids of newer versions
			rest, err = msgp.Skip(b)
		}
		return rest, err
	})
}
