// Package zp mirrors tests/vectors/schemas/zp.go (and zpn.go, the same source
// generated with -no-structnames-onwire) with the ZebraPack reader and writer
// the reference generator produces for it.
//
// Writers leave out every field that Go considers empty: "" and empty bin,
// numbers == 0 (so -0.0 too), false, the zero time, nil pointers, empty
// slices and maps. Fixed-size arrays and nested struct values are always
// written, and so is an interface{} field, even nil: the reference never
// considers an interface{} empty. Readers give absent fields their zero
// value and skip zids they do not know.
package zp

import (
	"time"

	"github.com/tinylib/msgp/msgp"

	"zpeer/wire"
)

// Prims holds one field of every primitive kind.
type Prims struct {
	S    string
	Bin  []byte
	F32  float32
	F64  float64
	C64  complex64
	C128 complex128
	U    uint
	U8   uint8
	U16  uint16
	U32  uint32
	U64  uint64
	By   byte
	I    int
	I8   int8
	I16  int16
	I32  int32
	I64  int64
	B    bool
	T    time.Time
	Any  any
}

// AppendZ appends p as a ZebraPack struct map.
func (p *Prims) AppendZ(o []byte, structNames bool) ([]byte, error) {
	w := wire.NewStruct("Prims")
	if p.S != "" {
		w.Field(0, msgp.AppendString(nil, p.S))
	}
	if len(p.Bin) != 0 {
		w.Field(1, msgp.AppendBytes(nil, p.Bin))
	}
	if p.F32 != 0 {
		w.Field(2, msgp.AppendFloat32(nil, p.F32))
	}
	if p.F64 != 0 {
		w.Field(3, msgp.AppendFloat64(nil, p.F64))
	}
	if p.C64 != 0 {
		w.Field(4, msgp.AppendComplex64(nil, p.C64))
	}
	if p.C128 != 0 {
		w.Field(5, msgp.AppendComplex128(nil, p.C128))
	}
	if p.U != 0 {
		w.Field(6, msgp.AppendUint(nil, p.U))
	}
	if p.U8 != 0 {
		w.Field(7, msgp.AppendUint8(nil, p.U8))
	}
	if p.U16 != 0 {
		w.Field(8, msgp.AppendUint16(nil, p.U16))
	}
	if p.U32 != 0 {
		w.Field(9, msgp.AppendUint32(nil, p.U32))
	}
	if p.U64 != 0 {
		w.Field(10, msgp.AppendUint64(nil, p.U64))
	}
	if p.By != 0 {
		w.Field(11, msgp.AppendByte(nil, p.By))
	}
	if p.I != 0 {
		w.Field(12, msgp.AppendInt(nil, p.I))
	}
	if p.I8 != 0 {
		w.Field(13, msgp.AppendInt8(nil, p.I8))
	}
	if p.I16 != 0 {
		w.Field(14, msgp.AppendInt16(nil, p.I16))
	}
	if p.I32 != 0 {
		w.Field(15, msgp.AppendInt32(nil, p.I32))
	}
	if p.I64 != 0 {
		w.Field(16, msgp.AppendInt64(nil, p.I64))
	}
	if p.B {
		w.Field(17, msgp.AppendBool(nil, p.B))
	}
	if !p.T.IsZero() {
		w.Field(18, msgp.AppendTime(nil, p.T))
	}
	wire.Put(w, 19, wire.AppendIntf, p.Any) // never empty, see the package comment
	return w.AppendTo(o, structNames)
}

// UnmarshalZ reads p from the front of b and returns the rest.
func (p *Prims) UnmarshalZ(b []byte) ([]byte, error) {
	*p = Prims{}
	return wire.ReadFields(b, "Prims", func(zid int64, b []byte) (rest []byte, err error) {
		switch zid {
		case 0:
			p.S, rest, err = wire.ReadString(b)
		case 1:
			p.Bin, rest, err = wire.ReadBytes(b)
		case 2:
			p.F32, rest, err = wire.ReadFloat32(b)
		case 3:
			p.F64, rest, err = wire.ReadFloat64(b)
		case 4:
			p.C64, rest, err = wire.ReadComplex64(b)
		case 5:
			p.C128, rest, err = wire.ReadComplex128(b)
		case 6:
			p.U, rest, err = wire.ReadUint[uint](b)
		case 7:
			p.U8, rest, err = wire.ReadUint[uint8](b)
		case 8:
			p.U16, rest, err = wire.ReadUint[uint16](b)
		case 9:
			p.U32, rest, err = wire.ReadUint[uint32](b)
		case 10:
			p.U64, rest, err = wire.ReadUint[uint64](b)
		case 11:
			p.By, rest, err = wire.ReadUint[byte](b)
		case 12:
			p.I, rest, err = wire.ReadInt[int](b)
		case 13:
			p.I8, rest, err = wire.ReadInt[int8](b)
		case 14:
			p.I16, rest, err = wire.ReadInt[int16](b)
		case 15:
			p.I32, rest, err = wire.ReadInt[int32](b)
		case 16:
			p.I64, rest, err = wire.ReadInt[int64](b)
		case 17:
			p.B, rest, err = wire.ReadBool(b)
		case 18:
			p.T, rest, err = wire.ReadTime(b)
		case 19:
			p.Any, rest, err = wire.ReadIntf(b)
		default:
			rest, err = msgp.Skip(b)
		}
		return rest, err
	})
}

// Inner is nested in Compound by value, by pointer and in containers.
type Inner struct {
	X int32
	Y string
}

// AppendZ appends in as a ZebraPack struct map.
func (in *Inner) AppendZ(o []byte, structNames bool) ([]byte, error) {
	w := wire.NewStruct("Inner")
	if in.X != 0 {
		w.Field(0, msgp.AppendInt32(nil, in.X))
	}
	if in.Y != "" {
		w.Field(1, msgp.AppendString(nil, in.Y))
	}
	return w.AppendTo(o, structNames)
}

// UnmarshalZ reads in from the front of b and returns the rest.
func (in *Inner) UnmarshalZ(b []byte) ([]byte, error) {
	*in = Inner{}
	return wire.ReadFields(b, "Inner", func(zid int64, b []byte) (rest []byte, err error) {
		switch zid {
		case 0:
			in.X, rest, err = wire.ReadInt[int32](b)
		case 1:
			in.Y, rest, err = wire.ReadString(b)
		default:
			rest, err = msgp.Skip(b)
		}
		return rest, err
	})
}

// Compound holds containers, pointers, nesting and field-tag variants. Its
// Skip fields have no Go field here: zid 0 (Gone, a retired struct{}) and
// zid 17 (UMap, a map[uint32]bool the generator cannot serialize) are never
// written, and a reader skips them.
type Compound struct {
	Ints    []int64
	Strs    []string
	Arr     [3]float64
	ByteArr [4]byte
	SMap    map[string]int64
	IMap    map[int64]string
	Nested  Inner
	Ptr     *Inner
	Inners  []Inner
	PInners []*Inner
	MInner  map[string]*Inner
	Matrix  [][]int32
	Old     uint16 // deprecated, still written and read
	Shown   int64  // showzero, which changes nothing on the wire
	PInt    *int64
	Renamed string
	Anys    []any
	Times   []time.Time
}

// AppendZ appends c as a ZebraPack struct map.
func (c *Compound) AppendZ(o []byte, structNames bool) ([]byte, error) {
	w := wire.NewStruct("Compound")
	inner := wire.AppendStruct[Inner](structNames)
	if len(c.Ints) != 0 {
		wire.Put(w, 1, wire.AppendSlice(wire.Infallible(msgp.AppendInt64)), c.Ints)
	}
	if len(c.Strs) != 0 {
		wire.Put(w, 2, wire.AppendSlice(wire.Infallible(msgp.AppendString)), c.Strs)
	}
	wire.Put(w, 3, wire.AppendSlice(wire.Infallible(msgp.AppendFloat64)), c.Arr[:])
	w.Field(4, msgp.AppendBytes(nil, c.ByteArr[:]))
	if len(c.SMap) != 0 {
		wire.Put(w, 5, wire.AppendMap(msgp.AppendString, wire.Infallible(msgp.AppendInt64)), c.SMap)
	}
	if len(c.IMap) != 0 {
		wire.Put(w, 6, wire.AppendMap(msgp.AppendInt64, wire.Infallible(msgp.AppendString)), c.IMap)
	}
	wire.Put(w, 7, inner, c.Nested)
	if c.Ptr != nil {
		wire.Put(w, 8, inner, *c.Ptr)
	}
	if len(c.Inners) != 0 {
		wire.Put(w, 9, wire.AppendSlice(inner), c.Inners)
	}
	if len(c.PInners) != 0 {
		wire.Put(w, 10, wire.AppendSlice(wire.AppendPointer(inner)), c.PInners)
	}
	if len(c.MInner) != 0 {
		wire.Put(w, 11, wire.AppendMap(msgp.AppendString, wire.AppendPointer(inner)), c.MInner)
	}
	if len(c.Matrix) != 0 {
		wire.Put(w, 12, wire.AppendSlice(wire.AppendSlice(wire.Infallible(msgp.AppendInt32))), c.Matrix)
	}
	if c.Old != 0 {
		w.Field(13, msgp.AppendUint16(nil, c.Old))
	}
	if c.Shown != 0 {
		w.Field(14, msgp.AppendInt64(nil, c.Shown))
	}
	if c.PInt != nil {
		w.Field(15, msgp.AppendInt64(nil, *c.PInt))
	}
	if c.Renamed != "" {
		w.Field(16, msgp.AppendString(nil, c.Renamed))
	}
	if len(c.Anys) != 0 {
		wire.Put(w, 18, wire.AppendSlice(wire.AppendIntf), c.Anys)
	}
	if len(c.Times) != 0 {
		wire.Put(w, 19, wire.AppendSlice(wire.Infallible(msgp.AppendTime)), c.Times)
	}
	return w.AppendTo(o, structNames)
}

// UnmarshalZ reads c from the front of b and returns the rest.
func (c *Compound) UnmarshalZ(b []byte) ([]byte, error) {
	*c = Compound{}
	readInner := wire.ReadStruct[Inner]
	return wire.ReadFields(b, "Compound", func(zid int64, b []byte) (rest []byte, err error) {
		switch zid {
		case 1:
			c.Ints, rest, err = wire.ReadSlice(wire.ReadInt[int64])(b)
		case 2:
			c.Strs, rest, err = wire.ReadSlice(wire.ReadString)(b)
		case 3:
			rest, err = wire.ReadArray(b, c.Arr[:], wire.ReadFloat64)
		case 4:
			rest, err = wire.ReadByteArray(b, c.ByteArr[:])
		case 5:
			c.SMap, rest, err = wire.ReadMap(wire.ReadString, wire.ReadInt[int64])(b)
		case 6:
			c.IMap, rest, err = wire.ReadMap(wire.ReadInt[int64], wire.ReadString)(b)
		case 7:
			c.Nested, rest, err = readInner(b)
		case 8:
			c.Ptr, rest, err = wire.ReadPointer(readInner)(b)
		case 9:
			c.Inners, rest, err = wire.ReadSlice(readInner)(b)
		case 10:
			c.PInners, rest, err = wire.ReadSlice(wire.ReadPointer(readInner))(b)
		case 11:
			c.MInner, rest, err = wire.ReadMap(wire.ReadString, wire.ReadPointer(readInner))(b)
		case 12:
			c.Matrix, rest, err = wire.ReadSlice(wire.ReadSlice(wire.ReadInt[int32]))(b)
		case 13:
			c.Old, rest, err = wire.ReadUint[uint16](b)
		case 14:
			c.Shown, rest, err = wire.ReadInt[int64](b)
		case 15:
			c.PInt, rest, err = wire.ReadPointer(wire.ReadInt[int64])(b)
		case 16:
			c.Renamed, rest, err = wire.ReadString(b)
		case 18:
			c.Anys, rest, err = wire.ReadSlice(wire.ReadIntf)(b)
		case 19:
			c.Times, rest, err = wire.ReadSlice(wire.ReadTime)(b)
		default: // the Skip fields, and zids of newer schemas
			rest, err = msgp.Skip(b)
		}
		return rest, err
	})
}

// Tree is recursive.
type Tree struct {
	Kids   []Tree
	Label  string
	Weight float32
	Up     *Tree
}

// AppendZ appends t as a ZebraPack struct map.
func (t *Tree) AppendZ(o []byte, structNames bool) ([]byte, error) {
	w := wire.NewStruct("Tree")
	tree := wire.AppendStruct[Tree](structNames)
	if len(t.Kids) != 0 {
		wire.Put(w, 0, wire.AppendSlice(tree), t.Kids)
	}
	if t.Label != "" {
		w.Field(1, msgp.AppendString(nil, t.Label))
	}
	if t.Weight != 0 {
		w.Field(2, msgp.AppendFloat32(nil, t.Weight))
	}
	if t.Up != nil {
		wire.Put(w, 3, tree, *t.Up)
	}
	return w.AppendTo(o, structNames)
}

// UnmarshalZ reads t from the front of b and returns the rest.
func (t *Tree) UnmarshalZ(b []byte) ([]byte, error) {
	*t = Tree{}
	readTree := wire.ReadStruct[Tree]
	return wire.ReadFields(b, "Tree", func(zid int64, b []byte) (rest []byte, err error) {
		switch zid {
		case 0:
			t.Kids, rest, err = wire.ReadSlice(readTree)(b)
		case 1:
			t.Label, rest, err = wire.ReadString(b)
		case 2:
			t.Weight, rest, err = wire.ReadFloat32(b)
		case 3:
			t.Up, rest, err = wire.ReadPointer(readTree)(b)
		default:
			rest, err = msgp.Skip(b)
		}
		return rest, err
	})
}
