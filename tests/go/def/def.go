// Package def mirrors the types of the reference repository's
// _generated/def.go that tests/golden2 has records of, with the reader and
// writer its generator makes with -msgp (tests/golden2/schemas/def.z): struct
// maps keyed by the fields' tag names, no struct names, fields in declaration
// order, only the fields tagged omitempty left out when empty. A struct the
// generator inlined into its parent (Kind 25 in def.z: X.ManyFixed,
// SimpleTestType.Obj, TestOmitEmpty.Inside1, OmitSimple.Inside1,
// OmitEmptyInside1.Inside2, Tree.Parent) is written there with every field,
// omitempty or not (appendMsgp's every); a struct referred to by name calls
// its own writer. TestHidden.Bad (a func, a Skip field) has no Go field here;
// TestObj's SpecialID is shimmed to []byte.
package def

import (
	"time"

	"github.com/tinylib/msgp/msgp"

	"zpeer/wire"
)

// ExtensionType is the type of every msgp.RawExtension field of the
// package: the generated reader reads only the type already in the field.
const ExtensionType = 9

// Types are the structs of the schema that have golden records, and the ones they hold.
var Types = map[string]func() wire.Record{
	"X":                func() wire.Record { return new(X) },
	"Fixed":            func() wire.Record { return new(Fixed) },
	"PreviouslyAnon":   func() wire.Record { return new(PreviouslyAnon) },
	"SimpleTestType":   func() wire.Record { return new(SimpleTestType) },
	"AliasContainer":   func() wire.Record { return new(AliasContainer) },
	"FastAlias":        func() wire.Record { return new(FastAlias) },
	"TestHidden":       func() wire.Record { return new(TestHidden) },
	"Embedded":         func() wire.Record { return new(Embedded) },
	"Things":           func() wire.Record { return new(Things) },
	"TestObj":          func() wire.Record { return new(TestObj) },
	"TestOmitEmpty":    func() wire.Record { return new(TestOmitEmpty) },
	"TopNester":        func() wire.Record { return new(TopNester) },
	"Rocky":            func() wire.Record { return new(Rocky) },
	"Bunny":            func() wire.Record { return new(Bunny) },
	"Moose":            func() wire.Record { return new(Moose) },
	"OmitEmptyInside1": func() wire.Record { return new(OmitEmptyInside1) },
	"OmitEmptyInside2": func() wire.Record { return new(OmitEmptyInside2) },
	"OmitSimple":       func() wire.Record { return new(OmitSimple) },
	"Wrapper":          func() wire.Record { return new(Wrapper) },
	"Tree":             func() wire.Record { return new(Tree) },
}

// msgpStruct is what every type here implements: its -msgp writer, written
// with every field where the generator inlined it (every), and its reader.
type msgpStruct interface {
	appendMsgp(o []byte, every bool) ([]byte, error)
	UnmarshalZ(b []byte) ([]byte, error)
}

// record makes a msgpStruct a wire.Record: no struct names in -msgp mode.
func appendRecord(s msgpStruct, o []byte) ([]byte, error) { return s.appendMsgp(o, false) }

// named appends a struct the schema names (Kind 22): its own writer, omitempty honored.
func named[T any, P interface {
	*T
	msgpStruct
}](o []byte, v T) ([]byte, error) {
	return P(&v).appendMsgp(o, false)
}

// inlined appends a struct the generator inlined (Kind 25): every field.
func inlined[T any, P interface {
	*T
	msgpStruct
}](o []byte, v T) ([]byte, error) {
	return P(&v).appendMsgp(o, true)
}

// read reads a struct of type T.
func read[T any, P interface {
	*T
	msgpStruct
}](b []byte) (T, []byte, error) {
	var v T
	rest, err := P(&v).UnmarshalZ(b)
	return v, rest, err
}

var (
	appendInts      = wire.AppendSlice(wire.AppendSigned[int])
	readInts        = wire.ReadSlice(wire.ReadInt[int])
	appendStrings   = wire.AppendSlice(wire.Infallible(msgp.AppendString))
	readStrings     = wire.ReadSlice(wire.ReadString)
	appendFloats    = wire.AppendSlice(wire.Infallible(msgp.AppendFloat64))
	readFloats      = wire.ReadSlice(wire.ReadFloat64)
	appendStringMap = wire.AppendMap(msgp.AppendString, wire.Infallible(msgp.AppendString))
	readStringMap   = wire.ReadMap(wire.ReadString, wire.ReadString)
	appendTime      = wire.Infallible(msgp.AppendTime)
	appendBools     = wire.AppendSlice(wire.Infallible(msgp.AppendBool))
	readBools       = wire.ReadSlice(wire.ReadBool)
	appendTimes     = wire.AppendSlice(appendTime)
	readTimes       = wire.ReadSlice(wire.ReadTime)
)

// X: byte arrays (bin), slices of arrays, slices of an inlined struct.
type X struct {
	Values    [32]byte
	More      [32]byte
	Others    [][32]int32
	Matrix    [][]int32
	ManyFixed []Fixed
}

func (x *X) AppendZ(o []byte, _ bool) ([]byte, error) { return appendRecord(x, o) }

func (x *X) appendMsgp(o []byte, _ bool) ([]byte, error) {
	w := wire.NewMsgpStruct("X")
	w.Field("Values", msgp.AppendBytes(nil, x.Values[:]))
	w.Field("More", msgp.AppendBytes(nil, x.More[:]))
	wire.PutTag(w, "Others", wire.AppendSlice(func(o []byte, a [32]int32) ([]byte, error) {
		return wire.AppendSlice(wire.AppendSigned[int32])(o, a[:])
	}), x.Others)
	wire.PutTag(w, "Matrix", wire.AppendSlice(wire.AppendSlice(wire.AppendSigned[int32])), x.Matrix)
	wire.PutTag(w, "ManyFixed", wire.AppendSlice(inlined[Fixed]), x.ManyFixed)
	return w.AppendTo(o)
}

func (x *X) UnmarshalZ(b []byte) ([]byte, error) {
	*x = X{}
	return wire.ReadTagFields(b, "X", func(tag string, b []byte) (rest []byte, err error) {
		switch tag {
		case "Values":
			rest, err = wire.ReadByteArray(b, x.Values[:])
		case "More":
			rest, err = wire.ReadByteArray(b, x.More[:])
		case "Others":
			x.Others, rest, err = wire.ReadSlice(func(b []byte) (a [32]int32, rest []byte, err error) {
				rest, err = wire.ReadArray(b, a[:], wire.ReadInt[int32])
				return a, rest, err
			})(b)
		case "Matrix":
			x.Matrix, rest, err = wire.ReadSlice(wire.ReadSlice(wire.ReadInt[int32]))(b)
		case "ManyFixed":
			x.ManyFixed, rest, err = wire.ReadSlice(read[Fixed])(b)
		default:
			rest, err = msgp.Skip(b)
		}
		return rest, err
	})
}

type Fixed struct {
	A float64
	B bool
}

func (f *Fixed) AppendZ(o []byte, _ bool) ([]byte, error) { return appendRecord(f, o) }

func (f *Fixed) appendMsgp(o []byte, _ bool) ([]byte, error) {
	w := wire.NewMsgpStruct("Fixed")
	w.Field("A", msgp.AppendFloat64(nil, f.A))
	w.Field("B", msgp.AppendBool(nil, f.B))
	return w.AppendTo(o)
}

func (f *Fixed) UnmarshalZ(b []byte) ([]byte, error) {
	*f = Fixed{}
	return wire.ReadTagFields(b, "Fixed", func(tag string, b []byte) (rest []byte, err error) {
		switch tag {
		case "A":
			f.A, rest, err = wire.ReadFloat64(b)
		case "B":
			f.B, rest, err = wire.ReadBool(b)
		default:
			rest, err = msgp.Skip(b)
		}
		return rest, err
	})
}

type PreviouslyAnon struct {
	ValueA string
	ValueB []byte
}

func (p *PreviouslyAnon) AppendZ(o []byte, _ bool) ([]byte, error) { return appendRecord(p, o) }

func (p *PreviouslyAnon) appendMsgp(o []byte, _ bool) ([]byte, error) {
	w := wire.NewMsgpStruct("PreviouslyAnon")
	w.Field("value_a", msgp.AppendString(nil, p.ValueA))
	w.Field("value_b", msgp.AppendBytes(nil, p.ValueB))
	return w.AppendTo(o)
}

func (p *PreviouslyAnon) UnmarshalZ(b []byte) ([]byte, error) {
	*p = PreviouslyAnon{}
	return wire.ReadTagFields(b, "PreviouslyAnon", func(tag string, b []byte) (rest []byte, err error) {
		switch tag {
		case "value_a":
			p.ValueA, rest, err = wire.ReadString(b)
		case "value_b":
			p.ValueB, rest, err = wire.ReadBytes(b)
		default:
			rest, err = msgp.Skip(b)
		}
		return rest, err
	})
}

type SimpleTestType struct {
	F   *float64
	Els map[string]string
	Obj *PreviouslyAnon
}

func (s *SimpleTestType) AppendZ(o []byte, _ bool) ([]byte, error) { return appendRecord(s, o) }

func (s *SimpleTestType) appendMsgp(o []byte, _ bool) ([]byte, error) {
	w := wire.NewMsgpStruct("SimpleTestType")
	wire.PutTag(w, "float", wire.AppendPointer(wire.Infallible(msgp.AppendFloat64)), s.F)
	wire.PutTag(w, "elements", appendStringMap, s.Els)
	wire.PutTag(w, "object", wire.AppendPointer(inlined[PreviouslyAnon]), s.Obj)
	return w.AppendTo(o)
}

func (s *SimpleTestType) UnmarshalZ(b []byte) ([]byte, error) {
	*s = SimpleTestType{}
	return wire.ReadTagFields(b, "SimpleTestType", func(tag string, b []byte) (rest []byte, err error) {
		switch tag {
		case "float":
			s.F, rest, err = wire.ReadPointer(wire.ReadFloat64)(b)
		case "elements":
			s.Els, rest, err = readStringMap(b)
		case "object":
			s.Obj, rest, err = wire.ReadPointer(read[PreviouslyAnon])(b)
		default:
			rest, err = msgp.Skip(b)
		}
		return rest, err
	})
}

type AliasContainer struct {
	Fast FastAlias
}

func (a *AliasContainer) AppendZ(o []byte, _ bool) ([]byte, error) { return appendRecord(a, o) }

func (a *AliasContainer) appendMsgp(o []byte, _ bool) ([]byte, error) {
	w := wire.NewMsgpStruct("AliasContainer")
	wire.PutTag(w, "Fast", named[FastAlias], a.Fast)
	return w.AppendTo(o)
}

func (a *AliasContainer) UnmarshalZ(b []byte) ([]byte, error) {
	*a = AliasContainer{}
	return wire.ReadTagFields(b, "AliasContainer", func(tag string, b []byte) (rest []byte, err error) {
		switch tag {
		case "Fast":
			a.Fast, rest, err = read[FastAlias](b)
		default:
			rest, err = msgp.Skip(b)
		}
		return rest, err
	})
}

// FastAlias is `type FastAlias TestFast`: a struct of the schema of its own.
type FastAlias struct {
	Lat, Long, Alt float64
	Data           []byte
}

func (f *FastAlias) AppendZ(o []byte, _ bool) ([]byte, error) { return appendRecord(f, o) }

func (f *FastAlias) appendMsgp(o []byte, _ bool) ([]byte, error) {
	w := wire.NewMsgpStruct("FastAlias")
	w.Field("Lat", msgp.AppendFloat64(nil, f.Lat))
	w.Field("Long", msgp.AppendFloat64(nil, f.Long))
	w.Field("Alt", msgp.AppendFloat64(nil, f.Alt))
	w.Field("Data", msgp.AppendBytes(nil, f.Data))
	return w.AppendTo(o)
}

func (f *FastAlias) UnmarshalZ(b []byte) ([]byte, error) {
	*f = FastAlias{}
	return wire.ReadTagFields(b, "FastAlias", func(tag string, b []byte) (rest []byte, err error) {
		switch tag {
		case "Lat":
			f.Lat, rest, err = wire.ReadFloat64(b)
		case "Long":
			f.Long, rest, err = wire.ReadFloat64(b)
		case "Alt":
			f.Alt, rest, err = wire.ReadFloat64(b)
		case "Data":
			f.Data, rest, err = wire.ReadBytes(b)
		default:
			rest, err = msgp.Skip(b)
		}
		return rest, err
	})
}

type TestHidden struct {
	A string
	B []float64
}

func (t *TestHidden) AppendZ(o []byte, _ bool) ([]byte, error) { return appendRecord(t, o) }

func (t *TestHidden) appendMsgp(o []byte, _ bool) ([]byte, error) {
	w := wire.NewMsgpStruct("TestHidden")
	w.Field("A", msgp.AppendString(nil, t.A))
	wire.PutTag(w, "B", appendFloats, t.B)
	return w.AppendTo(o)
}

func (t *TestHidden) UnmarshalZ(b []byte) ([]byte, error) {
	*t = TestHidden{}
	return wire.ReadTagFields(b, "TestHidden", func(tag string, b []byte) (rest []byte, err error) {
		switch tag {
		case "A":
			t.A, rest, err = wire.ReadString(b)
		case "B":
			t.B, rest, err = readFloats(b)
		default: // Bad (a Skip field) and fields of newer schemas
			rest, err = msgp.Skip(b)
		}
		return rest, err
	})
}

type Embedded struct {
	Embedded    *Embedded
	Children    []Embedded
	PtrChildren []*Embedded
	Other       string
}

func (e *Embedded) AppendZ(o []byte, _ bool) ([]byte, error) { return appendRecord(e, o) }

func (e *Embedded) appendMsgp(o []byte, _ bool) ([]byte, error) {
	w := wire.NewMsgpStruct("Embedded")
	wire.PutTag(w, "Embedded", wire.AppendPointer(named[Embedded]), e.Embedded)
	wire.PutTag(w, "Children", wire.AppendSlice(named[Embedded]), e.Children)
	wire.PutTag(w, "PtrChildren", wire.AppendSlice(wire.AppendPointer(named[Embedded])), e.PtrChildren)
	w.Field("Other", msgp.AppendString(nil, e.Other))
	return w.AppendTo(o)
}

func (e *Embedded) UnmarshalZ(b []byte) ([]byte, error) {
	*e = Embedded{}
	return wire.ReadTagFields(b, "Embedded", func(tag string, b []byte) (rest []byte, err error) {
		switch tag {
		case "Embedded":
			e.Embedded, rest, err = wire.ReadPointer(read[Embedded])(b)
		case "Children":
			e.Children, rest, err = wire.ReadSlice(read[Embedded])(b)
		case "PtrChildren":
			e.PtrChildren, rest, err = wire.ReadSlice(wire.ReadPointer(read[Embedded]))(b)
		case "Other":
			e.Other, rest, err = wire.ReadString(b)
		default:
			rest, err = msgp.Skip(b)
		}
		return rest, err
	})
}

// Things holds the extension fields (type ExtensionType), a complex64 and
// arrays, one sized by a constant of the msgp runtime (ExtensionPrefixSize, 6).
type Things struct {
	Cmplx complex64
	Vals  []int32
	Arr   [6]float64
	Arr2  [4]float64
	Ext   *msgp.RawExtension
	Oext  msgp.RawExtension
}

func (t *Things) AppendZ(o []byte, _ bool) ([]byte, error) { return appendRecord(t, o) }

func (t *Things) appendMsgp(o []byte, _ bool) ([]byte, error) {
	w := wire.NewMsgpStruct("Things")
	w.Field("complex", msgp.AppendComplex64(nil, t.Cmplx))
	wire.PutTag(w, "values", wire.AppendSlice(wire.AppendSigned[int32]), t.Vals)
	wire.PutTag(w, "arr", appendFloats, t.Arr[:])
	wire.PutTag(w, "arr2", appendFloats, t.Arr2[:])
	wire.PutTag(w, "ext", wire.AppendPointer(wire.AppendRawExtension), t.Ext)
	wire.PutTag(w, "oext", wire.AppendRawExtension, t.Oext)
	return w.AppendTo(o)
}

func (t *Things) UnmarshalZ(b []byte) ([]byte, error) {
	*t = Things{Oext: msgp.RawExtension{Type: ExtensionType}}
	readExt := func(b []byte) (msgp.RawExtension, []byte, error) { return wire.ReadRawExtension(b, ExtensionType) }
	return wire.ReadTagFields(b, "Things", func(tag string, b []byte) (rest []byte, err error) {
		switch tag {
		case "complex":
			t.Cmplx, rest, err = wire.ReadComplex64(b)
		case "values":
			t.Vals, rest, err = wire.ReadSlice(wire.ReadInt[int32])(b)
		case "arr":
			rest, err = wire.ReadArray(b, t.Arr[:], wire.ReadFloat64)
		case "arr2":
			rest, err = wire.ReadArray(b, t.Arr2[:], wire.ReadFloat64)
		case "ext":
			t.Ext, rest, err = wire.ReadPointer(readExt)(b)
		case "oext":
			t.Oext, rest, err = readExt(b)
		default:
			rest, err = msgp.Skip(b)
		}
		return rest, err
	})
}

// SpecialID is shimmed to []byte (//msgp:shim SpecialID as:[]byte).
type SpecialID []byte

type TestObj struct{ ID1, ID2 SpecialID }

func (t *TestObj) AppendZ(o []byte, _ bool) ([]byte, error) { return appendRecord(t, o) }

func (t *TestObj) appendMsgp(o []byte, _ bool) ([]byte, error) {
	w := wire.NewMsgpStruct("TestObj")
	w.Field("ID1", msgp.AppendBytes(nil, t.ID1))
	w.Field("ID2", msgp.AppendBytes(nil, t.ID2))
	return w.AppendTo(o)
}

func (t *TestObj) UnmarshalZ(b []byte) ([]byte, error) {
	*t = TestObj{}
	return wire.ReadTagFields(b, "TestObj", func(tag string, b []byte) (rest []byte, err error) {
		switch tag {
		case "ID1":
			t.ID1, rest, err = wire.ReadBytes(b)
		case "ID2":
			t.ID2, rest, err = wire.ReadBytes(b)
		default:
			rest, err = msgp.Skip(b)
		}
		return rest, err
	})
}

type TestOmitEmpty struct {
	Name     string
	BirthDay time.Time
	Phone    string
	Siblings int
	Spouse   bool
	Money    float64

	SliceName     []string
	SliceBirthDay []time.Time
	SlicePhone    []string
	SliceSiblings []int
	SliceSpouse   []bool
	SliceMoney    []float64

	ArrayName     [3]string
	ArrayBirthDay [3]time.Time
	ArrayPhone    [3]string
	ArraySiblings [3]int
	ArraySpouse   [3]bool
	ArrayMoney    [3]float64

	MapStringString map[string]string
	MapStringIface  map[string]any

	PtrName     *string
	PtrBirthDay *time.Time
	PtrPhone    *string
	PtrSiblings *int
	PtrSpouse   *bool
	PtrMoney    *float64

	Inside1    OmitEmptyInside1
	Greetings  string
	Bullwinkle *Rocky
}

func (t *TestOmitEmpty) AppendZ(o []byte, _ bool) ([]byte, error) { return appendRecord(t, o) }

// appendMsgp writes every field tagged omitempty only when it is not empty; an
// array (len 3) never is, nor a struct value.
func (t *TestOmitEmpty) appendMsgp(o []byte, _ bool) ([]byte, error) {
	w := wire.NewMsgpStruct("TestOmitEmpty")
	if t.Name != "" {
		w.Field("Name", msgp.AppendString(nil, t.Name))
	}
	if !t.BirthDay.IsZero() {
		w.Field("BirthDay", msgp.AppendTime(nil, t.BirthDay))
	}
	if t.Phone != "" {
		w.Field("Phone", msgp.AppendString(nil, t.Phone))
	}
	if t.Siblings != 0 {
		w.Field("Siblings", msgp.AppendInt(nil, t.Siblings))
	}
	if t.Spouse {
		w.Field("Spouse", msgp.AppendBool(nil, t.Spouse))
	}
	if t.Money != 0 {
		w.Field("Money", msgp.AppendFloat64(nil, t.Money))
	}
	if len(t.SliceName) != 0 {
		wire.PutTag(w, "SliceName", appendStrings, t.SliceName)
	}
	if len(t.SliceBirthDay) != 0 {
		wire.PutTag(w, "SliceBirthDay", appendTimes, t.SliceBirthDay)
	}
	if len(t.SlicePhone) != 0 {
		wire.PutTag(w, "SlicePhone", appendStrings, t.SlicePhone)
	}
	if len(t.SliceSiblings) != 0 {
		wire.PutTag(w, "SliceSiblings", appendInts, t.SliceSiblings)
	}
	if len(t.SliceSpouse) != 0 {
		wire.PutTag(w, "SliceSpouse", appendBools, t.SliceSpouse)
	}
	if len(t.SliceMoney) != 0 {
		wire.PutTag(w, "SliceMoney", appendFloats, t.SliceMoney)
	}
	wire.PutTag(w, "ArrayName", appendStrings, t.ArrayName[:])
	wire.PutTag(w, "ArrayBirthDay", appendTimes, t.ArrayBirthDay[:])
	wire.PutTag(w, "ArrayPhone", appendStrings, t.ArrayPhone[:])
	wire.PutTag(w, "ArraySiblings", appendInts, t.ArraySiblings[:])
	wire.PutTag(w, "ArraySpouse", appendBools, t.ArraySpouse[:])
	wire.PutTag(w, "ArrayMoney", appendFloats, t.ArrayMoney[:])
	if len(t.MapStringString) != 0 {
		wire.PutTag(w, "MapStringString", appendStringMap, t.MapStringString)
	}
	if len(t.MapStringIface) != 0 {
		wire.PutTag(w, "MapStringIface", wire.AppendMap(msgp.AppendString, wire.AppendIntf), t.MapStringIface)
	}
	if t.PtrName != nil {
		w.Field("PtrName", msgp.AppendString(nil, *t.PtrName))
	}
	if t.PtrBirthDay != nil {
		w.Field("PtrBirthDay", msgp.AppendTime(nil, *t.PtrBirthDay))
	}
	if t.PtrPhone != nil {
		w.Field("PtrPhone", msgp.AppendString(nil, *t.PtrPhone))
	}
	if t.PtrSiblings != nil {
		w.Field("PtrSiblings", msgp.AppendInt(nil, *t.PtrSiblings))
	}
	if t.PtrSpouse != nil {
		w.Field("PtrSpouse", msgp.AppendBool(nil, *t.PtrSpouse))
	}
	if t.PtrMoney != nil {
		w.Field("PtrMoney", msgp.AppendFloat64(nil, *t.PtrMoney))
	}
	wire.PutTag(w, "Inside1", inlined[OmitEmptyInside1], t.Inside1)
	if t.Greetings != "" {
		w.Field("Greetings", msgp.AppendString(nil, t.Greetings))
	}
	if t.Bullwinkle != nil {
		wire.PutTag(w, "Bullwinkle", named[Rocky], *t.Bullwinkle)
	}
	return w.AppendTo(o)
}

func (t *TestOmitEmpty) UnmarshalZ(b []byte) ([]byte, error) {
	*t = TestOmitEmpty{}
	return wire.ReadTagFields(b, "TestOmitEmpty", func(tag string, b []byte) (rest []byte, err error) {
		switch tag {
		case "Name":
			t.Name, rest, err = wire.ReadString(b)
		case "BirthDay":
			t.BirthDay, rest, err = wire.ReadTime(b)
		case "Phone":
			t.Phone, rest, err = wire.ReadString(b)
		case "Siblings":
			t.Siblings, rest, err = wire.ReadInt[int](b)
		case "Spouse":
			t.Spouse, rest, err = wire.ReadBool(b)
		case "Money":
			t.Money, rest, err = wire.ReadFloat64(b)
		case "SliceName":
			t.SliceName, rest, err = readStrings(b)
		case "SliceBirthDay":
			t.SliceBirthDay, rest, err = readTimes(b)
		case "SlicePhone":
			t.SlicePhone, rest, err = readStrings(b)
		case "SliceSiblings":
			t.SliceSiblings, rest, err = readInts(b)
		case "SliceSpouse":
			t.SliceSpouse, rest, err = readBools(b)
		case "SliceMoney":
			t.SliceMoney, rest, err = readFloats(b)
		case "ArrayName":
			rest, err = wire.ReadArray(b, t.ArrayName[:], wire.ReadString)
		case "ArrayBirthDay":
			rest, err = wire.ReadArray(b, t.ArrayBirthDay[:], wire.ReadTime)
		case "ArrayPhone":
			rest, err = wire.ReadArray(b, t.ArrayPhone[:], wire.ReadString)
		case "ArraySiblings":
			rest, err = wire.ReadArray(b, t.ArraySiblings[:], wire.ReadInt[int])
		case "ArraySpouse":
			rest, err = wire.ReadArray(b, t.ArraySpouse[:], wire.ReadBool)
		case "ArrayMoney":
			rest, err = wire.ReadArray(b, t.ArrayMoney[:], wire.ReadFloat64)
		case "MapStringString":
			t.MapStringString, rest, err = readStringMap(b)
		case "MapStringIface":
			t.MapStringIface, rest, err = wire.ReadMap(wire.ReadString, wire.ReadIntf)(b)
		case "PtrName":
			t.PtrName, rest, err = wire.ReadPointer(wire.ReadString)(b)
		case "PtrBirthDay":
			t.PtrBirthDay, rest, err = wire.ReadPointer(wire.ReadTime)(b)
		case "PtrPhone":
			t.PtrPhone, rest, err = wire.ReadPointer(wire.ReadString)(b)
		case "PtrSiblings":
			t.PtrSiblings, rest, err = wire.ReadPointer(wire.ReadInt[int])(b)
		case "PtrSpouse":
			t.PtrSpouse, rest, err = wire.ReadPointer(wire.ReadBool)(b)
		case "PtrMoney":
			t.PtrMoney, rest, err = wire.ReadPointer(wire.ReadFloat64)(b)
		case "Inside1":
			t.Inside1, rest, err = read[OmitEmptyInside1](b)
		case "Greetings":
			t.Greetings, rest, err = wire.ReadString(b)
		case "Bullwinkle":
			t.Bullwinkle, rest, err = wire.ReadPointer(read[Rocky])(b)
		default:
			rest, err = msgp.Skip(b)
		}
		return rest, err
	})
}

type TopNester struct {
	TopId       int
	Greetings   string
	Bullwinkle  *Rocky
	MyIntArray  [3]int
	MyByteArray [3]byte
	MyMap       map[string]string
	MyArrayMap  [3]map[string]string
	TopTime     time.Time
	PtrTime     *time.Time
}

func (t *TopNester) AppendZ(o []byte, _ bool) ([]byte, error) { return appendRecord(t, o) }

func (t *TopNester) appendMsgp(o []byte, _ bool) ([]byte, error) {
	w := wire.NewMsgpStruct("TopNester")
	w.Field("TopId", msgp.AppendInt(nil, t.TopId))
	if t.Greetings != "" {
		w.Field("Greetings", msgp.AppendString(nil, t.Greetings))
	}
	if t.Bullwinkle != nil {
		wire.PutTag(w, "Bullwinkle", named[Rocky], *t.Bullwinkle)
	}
	wire.PutTag(w, "MyIntArray", appendInts, t.MyIntArray[:])
	w.Field("MyByteArray", msgp.AppendBytes(nil, t.MyByteArray[:]))
	if len(t.MyMap) != 0 {
		wire.PutTag(w, "MyMap", appendStringMap, t.MyMap)
	}
	wire.PutTag(w, "MyArrayMap", wire.AppendSlice(appendStringMap), t.MyArrayMap[:])
	if !t.TopTime.IsZero() {
		w.Field("TopTime", msgp.AppendTime(nil, t.TopTime))
	}
	if t.PtrTime != nil {
		w.Field("PtrTime", msgp.AppendTime(nil, *t.PtrTime))
	}
	return w.AppendTo(o)
}

func (t *TopNester) UnmarshalZ(b []byte) ([]byte, error) {
	*t = TopNester{}
	return wire.ReadTagFields(b, "TopNester", func(tag string, b []byte) (rest []byte, err error) {
		switch tag {
		case "TopId":
			t.TopId, rest, err = wire.ReadInt[int](b)
		case "Greetings":
			t.Greetings, rest, err = wire.ReadString(b)
		case "Bullwinkle":
			t.Bullwinkle, rest, err = wire.ReadPointer(read[Rocky])(b)
		case "MyIntArray":
			rest, err = wire.ReadArray(b, t.MyIntArray[:], wire.ReadInt[int])
		case "MyByteArray":
			rest, err = wire.ReadByteArray(b, t.MyByteArray[:])
		case "MyMap":
			t.MyMap, rest, err = readStringMap(b)
		case "MyArrayMap":
			rest, err = wire.ReadArray(b, t.MyArrayMap[:], readStringMap)
		case "TopTime":
			t.TopTime, rest, err = wire.ReadTime(b)
		case "PtrTime":
			t.PtrTime, rest, err = wire.ReadPointer(wire.ReadTime)(b)
		default:
			rest, err = msgp.Skip(b)
		}
		return rest, err
	})
}

type Rocky struct {
	Bugs  *Bunny
	Road  string
	Moose *Moose
}

func (r *Rocky) AppendZ(o []byte, _ bool) ([]byte, error) { return appendRecord(r, o) }

func (r *Rocky) appendMsgp(o []byte, _ bool) ([]byte, error) {
	w := wire.NewMsgpStruct("Rocky")
	if r.Bugs != nil {
		wire.PutTag(w, "Bugs", named[Bunny], *r.Bugs)
	}
	if r.Road != "" {
		w.Field("Road", msgp.AppendString(nil, r.Road))
	}
	if r.Moose != nil {
		wire.PutTag(w, "Moose", named[Moose], *r.Moose)
	}
	return w.AppendTo(o)
}

func (r *Rocky) UnmarshalZ(b []byte) ([]byte, error) {
	*r = Rocky{}
	return wire.ReadTagFields(b, "Rocky", func(tag string, b []byte) (rest []byte, err error) {
		switch tag {
		case "Bugs":
			r.Bugs, rest, err = wire.ReadPointer(read[Bunny])(b)
		case "Road":
			r.Road, rest, err = wire.ReadString(b)
		case "Moose":
			r.Moose, rest, err = wire.ReadPointer(read[Moose])(b)
		default:
			rest, err = msgp.Skip(b)
		}
		return rest, err
	})
}

type Bunny struct {
	Carrots []int
	Sayings map[string]string
	BunnyId int
}

func (x *Bunny) AppendZ(o []byte, _ bool) ([]byte, error) { return appendRecord(x, o) }

func (x *Bunny) appendMsgp(o []byte, _ bool) ([]byte, error) {
	w := wire.NewMsgpStruct("Bunny")
	if len(x.Carrots) != 0 {
		wire.PutTag(w, "Carrots", appendInts, x.Carrots)
	}
	if len(x.Sayings) != 0 {
		wire.PutTag(w, "Sayings", appendStringMap, x.Sayings)
	}
	if x.BunnyId != 0 {
		w.Field("BunnyId", msgp.AppendInt(nil, x.BunnyId))
	}
	return w.AppendTo(o)
}

func (x *Bunny) UnmarshalZ(b []byte) ([]byte, error) {
	*x = Bunny{}
	return wire.ReadTagFields(b, "Bunny", func(tag string, b []byte) (rest []byte, err error) {
		switch tag {
		case "Carrots":
			x.Carrots, rest, err = readInts(b)
		case "Sayings":
			x.Sayings, rest, err = readStringMap(b)
		case "BunnyId":
			x.BunnyId, rest, err = wire.ReadInt[int](b)
		default:
			rest, err = msgp.Skip(b)
		}
		return rest, err
	})
}

type Moose struct {
	Trees   []int
	Sayings map[string]string
	Id      int
}

func (x *Moose) AppendZ(o []byte, _ bool) ([]byte, error) { return appendRecord(x, o) }

func (x *Moose) appendMsgp(o []byte, _ bool) ([]byte, error) {
	w := wire.NewMsgpStruct("Moose")
	if len(x.Trees) != 0 {
		wire.PutTag(w, "Trees", appendInts, x.Trees)
	}
	if len(x.Sayings) != 0 {
		wire.PutTag(w, "Sayings", appendStringMap, x.Sayings)
	}
	w.Field("Id", msgp.AppendInt(nil, x.Id))
	return w.AppendTo(o)
}

func (x *Moose) UnmarshalZ(b []byte) ([]byte, error) {
	*x = Moose{}
	return wire.ReadTagFields(b, "Moose", func(tag string, b []byte) (rest []byte, err error) {
		switch tag {
		case "Trees":
			x.Trees, rest, err = readInts(b)
		case "Sayings":
			x.Sayings, rest, err = readStringMap(b)
		case "Id":
			x.Id, rest, err = wire.ReadInt[int](b)
		default:
			rest, err = msgp.Skip(b)
		}
		return rest, err
	})
}

type OmitEmptyInside1 struct {
	CountOfMonteCrisco int
	Name               string
	Inside2            OmitEmptyInside2
}

func (x *OmitEmptyInside1) AppendZ(o []byte, _ bool) ([]byte, error) { return appendRecord(x, o) }

func (x *OmitEmptyInside1) appendMsgp(o []byte, every bool) ([]byte, error) {
	w := wire.NewMsgpStruct("OmitEmptyInside1")
	w.Field("CountOfMonteCrisco", msgp.AppendInt(nil, x.CountOfMonteCrisco))
	if every || x.Name != "" {
		w.Field("name", msgp.AppendString(nil, x.Name))
	}
	wire.PutTag(w, "Inside2", inlined[OmitEmptyInside2], x.Inside2)
	return w.AppendTo(o)
}

func (x *OmitEmptyInside1) UnmarshalZ(b []byte) ([]byte, error) {
	*x = OmitEmptyInside1{}
	return wire.ReadTagFields(b, "OmitEmptyInside1", func(tag string, b []byte) (rest []byte, err error) {
		switch tag {
		case "CountOfMonteCrisco":
			x.CountOfMonteCrisco, rest, err = wire.ReadInt[int](b)
		case "name":
			x.Name, rest, err = wire.ReadString(b)
		case "Inside2":
			x.Inside2, rest, err = read[OmitEmptyInside2](b)
		default:
			rest, err = msgp.Skip(b)
		}
		return rest, err
	})
}

type OmitEmptyInside2 struct {
	NameSuey string
}

func (x *OmitEmptyInside2) AppendZ(o []byte, _ bool) ([]byte, error) { return appendRecord(x, o) }

func (x *OmitEmptyInside2) appendMsgp(o []byte, every bool) ([]byte, error) {
	w := wire.NewMsgpStruct("OmitEmptyInside2")
	if every || x.NameSuey != "" {
		w.Field("NameSuey", msgp.AppendString(nil, x.NameSuey))
	}
	return w.AppendTo(o)
}

func (x *OmitEmptyInside2) UnmarshalZ(b []byte) ([]byte, error) {
	*x = OmitEmptyInside2{}
	return wire.ReadTagFields(b, "OmitEmptyInside2", func(tag string, b []byte) (rest []byte, err error) {
		switch tag {
		case "NameSuey":
			x.NameSuey, rest, err = wire.ReadString(b)
		default:
			rest, err = msgp.Skip(b)
		}
		return rest, err
	})
}

type OmitSimple struct {
	CountDrocula int
	Inside1      OmitEmptyInside1
}

func (x *OmitSimple) AppendZ(o []byte, _ bool) ([]byte, error) { return appendRecord(x, o) }

func (x *OmitSimple) appendMsgp(o []byte, _ bool) ([]byte, error) {
	w := wire.NewMsgpStruct("OmitSimple")
	w.Field("CountDrocula", msgp.AppendInt(nil, x.CountDrocula))
	wire.PutTag(w, "Inside1", inlined[OmitEmptyInside1], x.Inside1) // a struct value: never empty
	return w.AppendTo(o)
}

func (x *OmitSimple) UnmarshalZ(b []byte) ([]byte, error) {
	*x = OmitSimple{}
	return wire.ReadTagFields(b, "OmitSimple", func(tag string, b []byte) (rest []byte, err error) {
		switch tag {
		case "CountDrocula":
			x.CountDrocula, rest, err = wire.ReadInt[int](b)
		case "Inside1":
			x.Inside1, rest, err = read[OmitEmptyInside1](b)
		default:
			rest, err = msgp.Skip(b)
		}
		return rest, err
	})
}

type Wrapper struct {
	Tree *Tree
}

func (x *Wrapper) AppendZ(o []byte, _ bool) ([]byte, error) { return appendRecord(x, o) }

func (x *Wrapper) appendMsgp(o []byte, _ bool) ([]byte, error) {
	w := wire.NewMsgpStruct("Wrapper")
	wire.PutTag(w, "Tree", wire.AppendPointer(named[Tree]), x.Tree)
	return w.AppendTo(o)
}

func (x *Wrapper) UnmarshalZ(b []byte) ([]byte, error) {
	*x = Wrapper{}
	return wire.ReadTagFields(b, "Wrapper", func(tag string, b []byte) (rest []byte, err error) {
		switch tag {
		case "Tree":
			x.Tree, rest, err = wire.ReadPointer(read[Tree])(b)
		default:
			rest, err = msgp.Skip(b)
		}
		return rest, err
	})
}

type Tree struct {
	Children []Tree
	Element  int
	Parent   *Wrapper
}

func (x *Tree) AppendZ(o []byte, _ bool) ([]byte, error) { return appendRecord(x, o) }

func (x *Tree) appendMsgp(o []byte, _ bool) ([]byte, error) {
	w := wire.NewMsgpStruct("Tree")
	wire.PutTag(w, "Children", wire.AppendSlice(named[Tree]), x.Children)
	w.Field("Element", msgp.AppendInt(nil, x.Element))
	wire.PutTag(w, "Parent", wire.AppendPointer(inlined[Wrapper]), x.Parent)
	return w.AppendTo(o)
}

func (x *Tree) UnmarshalZ(b []byte) ([]byte, error) {
	*x = Tree{}
	return wire.ReadTagFields(b, "Tree", func(tag string, b []byte) (rest []byte, err error) {
		switch tag {
		case "Children":
			x.Children, rest, err = wire.ReadSlice(read[Tree])(b)
		case "Element":
			x.Element, rest, err = wire.ReadInt[int](b)
		case "Parent":
			x.Parent, rest, err = wire.ReadPointer(read[Wrapper])(b)
		default:
			rest, err = msgp.Skip(b)
		}
		return rest, err
	})
}
