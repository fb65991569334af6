// Package deep mirrors tests/golden/schemas/deep.go: containers nested in
// every way, maps keyed by int, int32 and int64, recursion through a struct
// value in a slice, and the two spellings of byte containers. Containers
// spelled with uint8 ([]uint8, [4]uint8, [3][2]uint8, [][]uint8) are msgpack
// arrays of unsigned integers, while []byte and [N]byte are bin: the
// generator goes by spelling, although Go treats the two as one type (the
// `zpeer:"u8"` tags tell the typed dump which is which). Deep.Odd, a
// map[uint16]bool the generator silently makes a Skip field, has no Go field
// here.
package deep

import (
	"time"

	"github.com/tinylib/msgp/msgp"

	"zpeer/wire"
)

// Types are the structs of the schema, by name.
var Types = map[string]func() wire.Record{
	"Leaf": func() wire.Record { return new(Leaf) },
	"Deep": func() wire.Record { return new(Deep) },
	"Pair": func() wire.Record { return new(Pair) },
}

// Leaf is referenced from many containers.
type Leaf struct {
	Name string
	Val  int32
	Tags []string
	When time.Time
}

// AppendZ appends l as a ZebraPack struct map.
func (l *Leaf) AppendZ(o []byte, structNames bool) ([]byte, error) {
	w := wire.NewStruct("Leaf")
	if l.Name != "" {
		w.Field(0, msgp.AppendString(nil, l.Name))
	}
	if l.Val != 0 {
		w.Field(1, msgp.AppendInt32(nil, l.Val))
	}
	if len(l.Tags) != 0 {
		wire.Put(w, 2, appendStrings, l.Tags)
	}
	if !l.When.IsZero() {
		w.Field(3, msgp.AppendTime(nil, l.When))
	}
	return w.AppendTo(o, structNames)
}

// UnmarshalZ reads l from the front of b and returns the rest.
func (l *Leaf) UnmarshalZ(b []byte) ([]byte, error) {
	*l = Leaf{}
	return wire.ReadFields(b, "Leaf", func(zid int64, b []byte) (rest []byte, err error) {
		switch zid {
		case 0:
			l.Name, rest, err = wire.ReadString(b)
		case 1:
			l.Val, rest, err = wire.ReadInt[int32](b)
		case 2:
			l.Tags, rest, err = readStrings(b)
		case 3:
			l.When, rest, err = wire.ReadTime(b)
		default:
			rest, err = msgp.Skip(b)
		}
		return rest, err
	})
}

// Deep exercises nested containers.
type Deep struct {
	Groups  map[string][]*Leaf
	Matrix  [][]int32
	Nested  map[int64]map[string]float32
	Grid    [3][2]uint8 `zpeer:"u8"`
	Blobs   [][]byte
	Times   []time.Time
	Head    *Leaf
	Leaves  []Leaf
	ByKey   map[int32]Leaf
	Fixed   [4]byte
	Cube    [2][2][2]int16
	MapList map[string][]map[string]int
	StrPtrs []*string
	F32s    []float32
	Cplx    []complex128
	Flags   map[int]bool
	LeafArr [2]*Leaf
	U64Map  map[int64][]uint64
	Ragged  [][][]string
	Kids    []Pair
	U8s     []uint8  `zpeer:"u8"`
	U8Arr   [4]uint8 `zpeer:"u8"`
	ByteGrd [2][3]byte
	FixMap  map[string][2]byte
	U8Slab  [][]uint8 `zpeer:"u8"`
}

var (
	appendStrings = wire.AppendSlice(wire.Infallible(msgp.AppendString))
	readStrings   = wire.ReadSlice(wire.ReadString)
	appendUint8s  = wire.AppendSlice(wire.Infallible(msgp.AppendUint8)) // an array, never bin
	readUint8s    = wire.ReadSlice(wire.ReadUint[uint8])
	appendInt16s  = wire.AppendSlice(wire.Infallible(msgp.AppendInt16))
)

// AppendZ appends d as a ZebraPack struct map. Its arrays are always
// written, whatever they hold.
func (d *Deep) AppendZ(o []byte, structNames bool) ([]byte, error) {
	w := wire.NewStruct("Deep")
	leaf := wire.AppendStruct[Leaf](structNames)
	leafPtr := wire.AppendPointer(leaf)
	if len(d.Groups) != 0 {
		wire.Put(w, 0, wire.AppendMap(msgp.AppendString, wire.AppendSlice(leafPtr)), d.Groups)
	}
	if len(d.Matrix) != 0 {
		wire.Put(w, 1, wire.AppendSlice(wire.AppendSlice(wire.Infallible(msgp.AppendInt32))), d.Matrix)
	}
	if len(d.Nested) != 0 {
		floats := wire.AppendMap(msgp.AppendString, wire.Infallible(msgp.AppendFloat32))
		wire.Put(w, 2, wire.AppendMap(msgp.AppendInt64, floats), d.Nested)
	}
	wire.Put(w, 3, wire.AppendSlice(func(o []byte, row [2]uint8) ([]byte, error) {
		return appendUint8s(o, row[:])
	}), d.Grid[:])
	if len(d.Blobs) != 0 {
		wire.Put(w, 4, wire.AppendSlice(wire.Infallible(msgp.AppendBytes)), d.Blobs)
	}
	if len(d.Times) != 0 {
		wire.Put(w, 5, wire.AppendSlice(wire.Infallible(msgp.AppendTime)), d.Times)
	}
	if d.Head != nil {
		wire.Put(w, 6, leaf, *d.Head)
	}
	if len(d.Leaves) != 0 {
		wire.Put(w, 7, wire.AppendSlice(leaf), d.Leaves)
	}
	if len(d.ByKey) != 0 {
		wire.Put(w, 8, wire.AppendMap(msgp.AppendInt32, leaf), d.ByKey)
	}
	w.Field(9, msgp.AppendBytes(nil, d.Fixed[:]))
	wire.Put(w, 10, wire.AppendSlice(func(o []byte, plane [2][2]int16) ([]byte, error) {
		return wire.AppendSlice(func(o []byte, row [2]int16) ([]byte, error) {
			return appendInt16s(o, row[:])
		})(o, plane[:])
	}), d.Cube[:])
	if len(d.MapList) != 0 {
		ints := wire.AppendMap(msgp.AppendString, wire.Infallible(msgp.AppendInt))
		wire.Put(w, 11, wire.AppendMap(msgp.AppendString, wire.AppendSlice(ints)), d.MapList)
	}
	if len(d.StrPtrs) != 0 {
		wire.Put(w, 12, wire.AppendSlice(wire.AppendPointer(wire.Infallible(msgp.AppendString))), d.StrPtrs)
	}
	if len(d.F32s) != 0 {
		wire.Put(w, 13, wire.AppendSlice(wire.Infallible(msgp.AppendFloat32)), d.F32s)
	}
	if len(d.Cplx) != 0 {
		wire.Put(w, 14, wire.AppendSlice(wire.Infallible(msgp.AppendComplex128)), d.Cplx)
	}
	if len(d.Flags) != 0 {
		wire.Put(w, 15, wire.AppendMap(msgp.AppendInt, wire.Infallible(msgp.AppendBool)), d.Flags)
	}
	wire.Put(w, 16, wire.AppendSlice(leafPtr), d.LeafArr[:])
	if len(d.U64Map) != 0 {
		wire.Put(w, 17, wire.AppendMap(msgp.AppendInt64, wire.AppendSlice(wire.Infallible(msgp.AppendUint64))), d.U64Map)
	}
	if len(d.Ragged) != 0 {
		wire.Put(w, 18, wire.AppendSlice(wire.AppendSlice(appendStrings)), d.Ragged)
	}
	if len(d.Kids) != 0 {
		wire.Put(w, 20, wire.AppendSlice(wire.AppendStruct[Pair](structNames)), d.Kids)
	}
	if len(d.U8s) != 0 {
		wire.Put(w, 21, appendUint8s, d.U8s)
	}
	wire.Put(w, 22, appendUint8s, d.U8Arr[:])
	wire.Put(w, 23, wire.AppendSlice(func(o []byte, row [3]byte) ([]byte, error) {
		return msgp.AppendBytes(o, row[:]), nil
	}), d.ByteGrd[:])
	if len(d.FixMap) != 0 {
		wire.Put(w, 24, wire.AppendMap(msgp.AppendString, func(o []byte, pair [2]byte) ([]byte, error) {
			return msgp.AppendBytes(o, pair[:]), nil
		}), d.FixMap)
	}
	if len(d.U8Slab) != 0 {
		wire.Put(w, 25, wire.AppendSlice(appendUint8s), d.U8Slab)
	}
	return w.AppendTo(o, structNames)
}

// UnmarshalZ reads d from the front of b and returns the rest.
func (d *Deep) UnmarshalZ(b []byte) ([]byte, error) {
	*d = Deep{}
	readLeaf := wire.ReadStruct[Leaf]
	readLeafPtr := wire.ReadPointer(readLeaf)
	return wire.ReadFields(b, "Deep", func(zid int64, b []byte) (rest []byte, err error) {
		switch zid {
		case 0:
			d.Groups, rest, err = wire.ReadMap(wire.ReadString, wire.ReadSlice(readLeafPtr))(b)
		case 1:
			d.Matrix, rest, err = wire.ReadSlice(wire.ReadSlice(wire.ReadInt[int32]))(b)
		case 2:
			floats := wire.ReadMap(wire.ReadString, wire.ReadFloat32)
			d.Nested, rest, err = wire.ReadMap(wire.ReadInt[int64], floats)(b)
		case 3:
			rest, err = wire.ReadArray(b, d.Grid[:], func(b []byte) (row [2]uint8, rest []byte, err error) {
				rest, err = wire.ReadArray(b, row[:], wire.ReadUint[uint8])
				return row, rest, err
			})
		case 4:
			d.Blobs, rest, err = wire.ReadSlice(wire.ReadBytes)(b)
		case 5:
			d.Times, rest, err = wire.ReadSlice(wire.ReadTime)(b)
		case 6:
			d.Head, rest, err = readLeafPtr(b)
		case 7:
			d.Leaves, rest, err = wire.ReadSlice(readLeaf)(b)
		case 8:
			d.ByKey, rest, err = wire.ReadMap(wire.ReadInt[int32], readLeaf)(b)
		case 9:
			rest, err = wire.ReadByteArray(b, d.Fixed[:])
		case 10:
			rest, err = wire.ReadArray(b, d.Cube[:], func(b []byte) (plane [2][2]int16, rest []byte, err error) {
				rest, err = wire.ReadArray(b, plane[:], func(b []byte) (row [2]int16, rest []byte, err error) {
					rest, err = wire.ReadArray(b, row[:], wire.ReadInt[int16])
					return row, rest, err
				})
				return plane, rest, err
			})
		case 11:
			ints := wire.ReadMap(wire.ReadString, wire.ReadInt[int])
			d.MapList, rest, err = wire.ReadMap(wire.ReadString, wire.ReadSlice(ints))(b)
		case 12:
			d.StrPtrs, rest, err = wire.ReadSlice(wire.ReadPointer(wire.ReadString))(b)
		case 13:
			d.F32s, rest, err = wire.ReadSlice(wire.ReadFloat32)(b)
		case 14:
			d.Cplx, rest, err = wire.ReadSlice(wire.ReadComplex128)(b)
		case 15:
			d.Flags, rest, err = wire.ReadMap(wire.ReadInt[int], wire.ReadBool)(b)
		case 16:
			rest, err = wire.ReadArray(b, d.LeafArr[:], readLeafPtr)
		case 17:
			d.U64Map, rest, err = wire.ReadMap(wire.ReadInt[int64], wire.ReadSlice(wire.ReadUint[uint64]))(b)
		case 18:
			d.Ragged, rest, err = wire.ReadSlice(wire.ReadSlice(readStrings))(b)
		case 20:
			d.Kids, rest, err = wire.ReadSlice(wire.ReadStruct[Pair])(b)
		case 21:
			d.U8s, rest, err = readUint8s(b)
		case 22:
			rest, err = wire.ReadArray(b, d.U8Arr[:], wire.ReadUint[uint8])
		case 23:
			rest, err = wire.ReadArray(b, d.ByteGrd[:], func(b []byte) (row [3]byte, rest []byte, err error) {
				rest, err = wire.ReadByteArray(b, row[:])
				return row, rest, err
			})
		case 24:
			d.FixMap, rest, err = wire.ReadMap(wire.ReadString, func(b []byte) (pair [2]byte, rest []byte, err error) {
				rest, err = wire.ReadByteArray(b, pair[:])
				return pair, rest, err
			})(b)
		case 25:
			d.U8Slab, rest, err = wire.ReadSlice(readUint8s)(b)
		default: // zid 19 (Odd, skipped by the generator) and zids of newer schemas
			rest, err = msgp.Skip(b)
		}
		return rest, err
	})
}

// Pair recurses into Deep through a pointer.
type Pair struct {
	K string
	V *Deep
}

// AppendZ appends p as a ZebraPack struct map.
func (p *Pair) AppendZ(o []byte, structNames bool) ([]byte, error) {
	w := wire.NewStruct("Pair")
	if p.K != "" {
		w.Field(0, msgp.AppendString(nil, p.K))
	}
	if p.V != nil {
		wire.Put(w, 1, wire.AppendStruct[Deep](structNames), *p.V)
	}
	return w.AppendTo(o, structNames)
}

// UnmarshalZ reads p from the front of b and returns the rest.
func (p *Pair) UnmarshalZ(b []byte) ([]byte, error) {
	*p = Pair{}
	return wire.ReadFields(b, "Pair", func(zid int64, b []byte) (rest []byte, err error) {
		switch zid {
		case 0:
			p.K, rest, err = wire.ReadString(b)
		case 1:
			p.V, rest, err = wire.ReadPointer(wire.ReadStruct[Deep])(b)
		default:
			rest, err = msgp.Skip(b)
		}
		return rest, err
	})
}
