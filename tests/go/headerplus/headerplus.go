// Package headerplus mirrors the reference's testdata/headerplus.go
// (tests/golden/schemas/headerplus.go): Plus holds an interface-typed field
// (msg:",iface") and a slice of them. The writer leaves a nil Pet out, like
// any empty field, and writes a set one as the struct map of its dynamic
// type, -1 name included; the reader learns the type from that name.
package headerplus

import (
	"errors"
	"fmt"
	"time"

	"github.com/tinylib/msgp/msgp"

	"zpeer/wire"
)

// Types are the structs of the schema, by name.
var Types = map[string]func() wire.Record{
	"Dog":    func() wire.Record { return new(Dog) },
	"Owl":    func() wire.Record { return new(Owl) },
	"Header": func() wire.Record { return new(Header) },
	"Plus":   func() wire.Record { return new(Plus) },
}

// Familiar is the interface of Plus's interface-typed fields.
type Familiar interface {
	Name() string
	wire.Record
}

// Dog is a Familiar.
type Dog struct {
	Nm string
}

// Name is the dog's name.
func (d *Dog) Name() string { return d.Nm }

// AppendZ appends d as a ZebraPack struct map.
func (d *Dog) AppendZ(o []byte, structNames bool) ([]byte, error) {
	return appendNamed(o, "Dog", d.Nm, structNames)
}

// UnmarshalZ reads d from the front of b and returns the rest.
func (d *Dog) UnmarshalZ(b []byte) ([]byte, error) {
	d.Nm = ""
	return readNamed(b, "Dog", &d.Nm)
}

// Owl is a Familiar with the same fields as Dog.
type Owl struct {
	Nm string
}

// Name is the owl's name.
func (w *Owl) Name() string { return w.Nm }

// AppendZ appends w as a ZebraPack struct map.
func (w *Owl) AppendZ(o []byte, structNames bool) ([]byte, error) {
	return appendNamed(o, "Owl", w.Nm, structNames)
}

// UnmarshalZ reads w from the front of b and returns the rest.
func (w *Owl) UnmarshalZ(b []byte) ([]byte, error) {
	w.Nm = ""
	return readNamed(b, "Owl", &w.Nm)
}

// appendNamed writes Dog and Owl, which differ only in their struct name.
func appendNamed(o []byte, structName, nm string, structNames bool) ([]byte, error) {
	w := wire.NewStruct(structName)
	if nm != "" {
		w.Field(0, msgp.AppendString(nil, nm))
	}
	return w.AppendTo(o, structNames)
}

func readNamed(b []byte, structName string, nm *string) ([]byte, error) {
	return wire.ReadFields(b, structName, func(zid int64, b []byte) (rest []byte, err error) {
		switch zid {
		case 0:
			*nm, rest, err = wire.ReadString(b)
		default:
			rest, err = msgp.Skip(b)
		}
		return rest, err
	})
}

// newFamiliar is Plus.NewValueAsInterface of the reference's source.
func newFamiliar(typeName string) (Familiar, error) {
	switch typeName {
	case "Dog":
		return new(Dog), nil
	case "Owl":
		return new(Owl), nil
	}
	return nil, fmt.Errorf("Familiar: unknown struct name %q", typeName)
}

// readFamiliar reads a Familiar: nil, or a struct map whose -1 name says
// which type it holds.
func readFamiliar(b []byte) (Familiar, []byte, error) {
	if msgp.IsNil(b) {
		return nil, b[1:], nil
	}
	typeName, err := wire.StructName(b)
	if err != nil {
		return nil, b, fmt.Errorf("Familiar: %w", err)
	}
	value, err := newFamiliar(typeName)
	if err != nil {
		return nil, b, err
	}
	rest, err := value.UnmarshalZ(b)
	return value, rest, err
}

// errNilFamiliar: the reference's writer calls MarshalMsg on each element
// of a []Familiar, which panics on a nil one; the peer refuses it instead.
var errNilFamiliar = errors.New("a nil Familiar in a slice: the reference's writer cannot write it")

func appendFamiliar(structNames bool) wire.Appender[Familiar] {
	return func(o []byte, value Familiar) ([]byte, error) {
		if value == nil {
			return o, errNilFamiliar
		}
		return value.AppendZ(o, structNames)
	}
}

// Header is a plain struct of the schema.
type Header struct {
	S1 string
	S2 string
	C  int64
}

// AppendZ appends h as a ZebraPack struct map.
func (h *Header) AppendZ(o []byte, structNames bool) ([]byte, error) {
	w := wire.NewStruct("Header")
	if h.S1 != "" {
		w.Field(0, msgp.AppendString(nil, h.S1))
	}
	if h.S2 != "" {
		w.Field(1, msgp.AppendString(nil, h.S2))
	}
	if h.C != 0 {
		w.Field(2, msgp.AppendInt64(nil, h.C))
	}
	return w.AppendTo(o, structNames)
}

// UnmarshalZ reads h from the front of b and returns the rest.
func (h *Header) UnmarshalZ(b []byte) ([]byte, error) {
	*h = Header{}
	return wire.ReadFields(b, "Header", func(zid int64, b []byte) (rest []byte, err error) {
		switch zid {
		case 0:
			h.S1, rest, err = wire.ReadString(b)
		case 1:
			h.S2, rest, err = wire.ReadString(b)
		case 2:
			h.C, rest, err = wire.ReadInt[int64](b)
		default:
			rest, err = msgp.Skip(b)
		}
		return rest, err
	})
}

// Plus holds the interface-typed fields.
type Plus struct {
	Tm    time.Time
	N     int64
	S     string
	F     float64
	Pet   Familiar
	Flock []Familiar
}

// AppendZ appends p as a ZebraPack struct map.
func (p *Plus) AppendZ(o []byte, structNames bool) ([]byte, error) {
	w := wire.NewStruct("Plus")
	if !p.Tm.IsZero() {
		w.Field(0, msgp.AppendTime(nil, p.Tm))
	}
	if p.N != 0 {
		w.Field(1, msgp.AppendInt64(nil, p.N))
	}
	if p.S != "" {
		w.Field(2, msgp.AppendString(nil, p.S))
	}
	if p.F != 0 {
		w.Field(3, msgp.AppendFloat64(nil, p.F))
	}
	if p.Pet != nil { // an interface-typed field is empty when nil
		wire.Put(w, 4, appendFamiliar(structNames), p.Pet)
	}
	if len(p.Flock) != 0 {
		wire.Put(w, 5, wire.AppendSlice(appendFamiliar(structNames)), p.Flock)
	}
	return w.AppendTo(o, structNames)
}

// UnmarshalZ reads p from the front of b and returns the rest.
func (p *Plus) UnmarshalZ(b []byte) ([]byte, error) {
	*p = Plus{}
	return wire.ReadFields(b, "Plus", func(zid int64, b []byte) (rest []byte, err error) {
		switch zid {
		case 0:
			p.Tm, rest, err = wire.ReadTime(b)
		case 1:
			p.N, rest, err = wire.ReadInt[int64](b)
		case 2:
			p.S, rest, err = wire.ReadString(b)
		case 3:
			p.F, rest, err = wire.ReadFloat64(b)
		case 4:
			p.Pet, rest, err = readFamiliar(b)
		case 5:
			p.Flock, rest, err = wire.ReadSlice(readFamiliar)(b)
		default:
			rest, err = msgp.Skip(b)
		}
		return rest, err
	})
}
