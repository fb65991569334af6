// Package typed describes a Go value as the typed tree of the golden
// records' manifest (tests/golden/README.md, "The typed tree of expect"), so
// that a test can compare what the peer read with what the reference read,
// Go types included. A value held in an interface (an interface{} or an
// interface-typed field) also carries its dynamic Go type, as fmt's %T
// prints it, under "go": e.g. "int64", "uint64", "float32", "complex64",
// "*msgp.RawExtension", "map[string]interface {}", "*headerplus.Dog".
package typed

import (
	"encoding/hex"
	"fmt"
	"math"
	"reflect"
	"time"

	"github.com/tinylib/msgp/msgp"
)

// Node is one node of the tree.
type Node = map[string]any

var (
	timeType   = reflect.TypeFor[time.Time]()
	rawExtType = reflect.TypeFor[msgp.RawExtension]()
	numberType = reflect.TypeFor[msgp.Number]()
)

// Of is the typed tree of value (a struct, or a pointer to one).
func Of(value any) Node { return of(reflect.ValueOf(value), false, false) }

// of is the tree of v. u8 is set inside a field tagged `zpeer:"u8"`, whose
// containers of uint8 are spelled uint8 in the schema's source: arrays of
// integers, not bin. top is set for a field whose declared type is time.Time.
func of(v reflect.Value, u8, top bool) Node {
	switch v.Kind() {
	case reflect.Invalid:
		return Node{"t": "nil"}
	case reflect.Interface:
		if v.IsNil() {
			return Node{"t": "nil"}
		}
		n := of(v.Elem(), false, false)
		n["go"] = v.Elem().Type().String()
		return n
	case reflect.Pointer:
		if v.IsNil() {
			return Node{"t": "nil"}
		}
		return of(v.Elem(), u8, false)
	case reflect.Struct:
		switch v.Type() {
		case timeType:
			t := v.Interface().(time.Time)
			return Node{"t": "time", "sec": t.Unix(), "nsec": t.Nanosecond(), "zero": t.IsZero(), "top": top}
		case rawExtType:
			ext := v.Interface().(msgp.RawExtension)
			return Node{"t": "ext", "type": ext.Type, "hex": hex.EncodeToString(ext.Data)}
		case numberType:
			return number(v.Interface().(msgp.Number))
		}
		fields := Node{}
		for i := range v.NumField() {
			field := v.Type().Field(i)
			fields[field.Name] = of(v.Field(i), field.Tag.Get("zpeer") == "u8", field.Type == timeType)
		}
		return Node{"t": "struct", "name": v.Type().Name(), "f": fields}
	case reflect.Bool:
		return Node{"t": "bool", "v": v.Bool()}
	case reflect.String:
		return Node{"t": "str", "v": v.String()}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return Node{"t": "int", "v": v.Int()}
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return Node{"t": "uint", "v": v.Uint()}
	case reflect.Float32:
		return Node{"t": "f32", "bits": bits32(exactly[float32](v, func() float32 { return float32(v.Float()) }))}
	case reflect.Float64:
		return Node{"t": "f64", "bits": bits64(v.Float())}
	case reflect.Complex64:
		c := exactly[complex64](v, func() complex64 { return complex64(v.Complex()) })
		return Node{"t": "c64", "re": bits32(real(c)), "im": bits32(imag(c))}
	case reflect.Complex128:
		c := v.Complex()
		return Node{"t": "c128", "re": bits64(real(c)), "im": bits64(imag(c))}
	case reflect.Slice, reflect.Array:
		return list(v, u8)
	case reflect.Map:
		entries := make([][2]Node, 0, v.Len())
		for it := v.MapRange(); it.Next(); {
			entries = append(entries, [2]Node{of(it.Key(), u8, false), of(it.Value(), u8, false)})
		}
		return Node{"t": "map", "v": entries} // in Go's random order: the reader sorts
	}
	panic(fmt.Sprintf("typed: no tree for %s", v.Type()))
}

// list is the tree of a slice or an array: bin for bytes, unless spelled
// uint8 (u8), else a list.
func list(v reflect.Value, u8 bool) Node {
	byteElems := v.Type().Elem().Kind() == reflect.Uint8
	if byteElems && !u8 {
		data := make([]byte, v.Len())
		for i := range data {
			data[i] = byte(v.Index(i).Uint())
		}
		return Node{"t": "bytes", "hex": hex.EncodeToString(data)}
	}
	elems := make([]Node, v.Len())
	for i := range elems {
		elems[i] = of(v.Index(i), u8, false)
	}
	n := Node{"t": "list", "v": elems}
	if byteElems {
		n["u8"] = true
	}
	return n
}

// number is the tree of a msgp.Number, by the family it holds: an int, a
// uint, or the IEEE bits of an f32 or f64 as it writes them (no conversion).
func number(n msgp.Number) Node {
	encoded, _ := n.MarshalMsg(nil)
	switch n.Type() {
	case msgp.UintType:
		u, _ := n.Uint()
		return Node{"t": "uint", "v": u}
	case msgp.Float32Type:
		return Node{"t": "f32", "bits": hex.EncodeToString(encoded[1:5])}
	case msgp.Float64Type:
		return Node{"t": "f64", "bits": hex.EncodeToString(encoded[1:9])}
	}
	i, _ := n.Int()
	return Node{"t": "int", "v": i}
}

// exactly is the value v holds, without the conversion through float64 or
// complex128 of reflect's accessors, which sets the quiet bit of a signaling
// NaN; convert does that conversion for values that cannot be had otherwise
// (unexported fields, which hold no floats in the peer's schemas).
func exactly[T any](v reflect.Value, convert func() T) T {
	if v.CanInterface() {
		if value, ok := v.Interface().(T); ok {
			return value
		}
	}
	return convert()
}

// bits32 and bits64 are the IEEE bits in hex.
func bits32(f float32) string { return fmt.Sprintf("%08x", math.Float32bits(f)) }

func bits64(f float64) string { return fmt.Sprintf("%016x", math.Float64bits(f)) }
