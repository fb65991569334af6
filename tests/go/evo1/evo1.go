// Package evo1 mirrors tests/vectors/schemas/evo1.go, the first version of
// Person (see package zp for the writer's and reader's rules).
package evo1

import (
	"github.com/tinylib/msgp/msgp"

	"zpeer/wire"
)

// Person is the first version of the evolving struct.
type Person struct {
	Name  string
	Age   int32
	Email string
}

// AppendZ appends p as a ZebraPack struct map.
func (p *Person) AppendZ(o []byte, structNames bool) ([]byte, error) {
	w := wire.NewStruct("Person")
	if p.Name != "" {
		w.Field(0, msgp.AppendString(nil, p.Name))
	}
	if p.Age != 0 {
		w.Field(1, msgp.AppendInt32(nil, p.Age))
	}
	if p.Email != "" {
		w.Field(2, msgp.AppendString(nil, p.Email))
	}
	return w.AppendTo(o, structNames)
}

// UnmarshalZ reads p from the front of b and returns the rest; the zids of
// newer versions (3 and 4 in evo2) are skipped.
func (p *Person) UnmarshalZ(b []byte) ([]byte, error) {
	*p = Person{}
	return wire.ReadFields(b, "Person", func(zid int64, b []byte) (rest []byte, err error) {
		switch zid {
		case 0:
			p.Name, rest, err = wire.ReadString(b)
		case 1:
			p.Age, rest, err = wire.ReadInt[int32](b)
		case 2:
			p.Email, rest, err = wire.ReadString(b)
		default:
			rest, err = msgp.Skip(b)
		}
		return rest, err
	})
}
