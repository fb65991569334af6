// Package rawnum mirrors tests/schemas/rawnum.go: the reference runtime's
// msgp.Raw and msgp.Number as fields and in containers. The generator never
// treats a field of a named type of another package as empty (gen/omitempty.go:
// IDENT is never empty), so Raw and Number are always written: an empty Raw
// as nil, a zero Number as 0.
package rawnum

import (
	"github.com/tinylib/msgp/msgp"

	"zpeer/wire"
)

// Types are the structs of the schema, by name.
var Types = map[string]func() wire.Record{
	"Holder": func() wire.Record { return new(Holder) },
}

type Holder struct {
	Raw      msgp.Raw
	Num      msgp.Number
	Nums     []msgp.Number
	Raws     []msgp.Raw
	ByName   map[string]msgp.Raw
	MaybeNum *msgp.Number
	Label    string
}

// AppendZ appends h as a ZebraPack struct map.
func (h *Holder) AppendZ(o []byte, structNames bool) ([]byte, error) {
	w := wire.NewStruct("Holder")
	wire.Put(w, 0, wire.AppendRaw, h.Raw)
	wire.Put(w, 1, wire.AppendNumber, h.Num)
	if len(h.Nums) != 0 {
		wire.Put(w, 2, wire.AppendSlice(wire.AppendNumber), h.Nums)
	}
	if len(h.Raws) != 0 {
		wire.Put(w, 3, wire.AppendSlice(wire.AppendRaw), h.Raws)
	}
	if len(h.ByName) != 0 {
		wire.Put(w, 4, wire.AppendMap(msgp.AppendString, wire.AppendRaw), h.ByName)
	}
	if h.MaybeNum != nil {
		wire.Put(w, 5, wire.AppendNumber, *h.MaybeNum)
	}
	if h.Label != "" {
		w.Field(6, msgp.AppendString(nil, h.Label))
	}
	return w.AppendTo(o, structNames)
}

// UnmarshalZ reads h from the front of b and returns the rest.
func (h *Holder) UnmarshalZ(b []byte) ([]byte, error) {
	*h = Holder{}
	return wire.ReadFields(b, "Holder", func(zid int64, b []byte) (rest []byte, err error) {
		switch zid {
		case 0:
			h.Raw, rest, err = wire.ReadRaw(b)
		case 1:
			h.Num, rest, err = wire.ReadNumber(b)
		case 2:
			h.Nums, rest, err = wire.ReadSlice(wire.ReadNumber)(b)
		case 3:
			h.Raws, rest, err = wire.ReadSlice(wire.ReadRaw)(b)
		case 4:
			h.ByName, rest, err = wire.ReadMap(wire.ReadString, wire.ReadRaw)(b)
		case 5:
			h.MaybeNum, rest, err = wire.ReadPointer(wire.ReadNumber)(b)
		case 6:
			h.Label, rest, err = wire.ReadString(b)
		default:
			rest, err = msgp.Skip(b)
		}
		return rest, err
	})
}
