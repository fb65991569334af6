package wire

import (
	"fmt"

	"github.com/tinylib/msgp/msgp"
)

// structNameKey is the key of the entry that holds the struct's name.
const structNameKey = -1

// StructWriter collects the entries of one struct map. The writer leaves
// zero values out, so the map's size is known only once every field has been
// looked at: entries are collected first and framed by AppendTo.
type StructWriter struct {
	name    string
	entries []byte
	count   uint32
	err     error // the first failure of Put
}

// NewStruct starts the struct map of the struct called name.
func NewStruct(name string) *StructWriter {
	return &StructWriter{name: name}
}

// Field adds the entry of zid holding an encoded value. Keys are written
// with the smallest signed encoding.
func (s *StructWriter) Field(zid int64, value []byte) {
	s.entries = append(msgp.AppendInt64(s.entries, zid), value...)
	s.count++
}

// Put adds the entry of zid holding value as encoded by appendValue.
func Put[T any](s *StructWriter, zid int64, appendValue Appender[T], value T) {
	if value, ok := encode(s, fmt.Sprintf("zid %d", zid), appendValue, value); ok {
		s.Field(zid, value)
	}
}

// encode is value as appendValue encodes it, false when it or an earlier field
// of s failed: s keeps the first failure, naming the struct and the field.
func encode[T any](s *StructWriter, field string, appendValue Appender[T], value T) ([]byte, bool) {
	if s.err != nil {
		return nil, false
	}
	encoded, err := appendValue(nil, value)
	if err != nil {
		s.err = fmt.Errorf("%s: %s: %w", s.name, field, err)
		return nil, false
	}
	return encoded, true
}

// AppendTo appends the struct map to o: its header, the -1 struct name entry
// unless structNames is false (-no-structnames-onwire), then the fields in
// the order they were added.
func (s *StructWriter) AppendTo(o []byte, structNames bool) ([]byte, error) {
	if s.err != nil {
		return o, s.err
	}
	size := s.count
	if structNames {
		size++
	}
	o = msgp.AppendMapHeader(o, size)
	if structNames {
		o = msgp.AppendString(msgp.AppendInt64(o, structNameKey), s.name)
	}
	return append(o, s.entries...), nil
}

// Appender appends the encoding of one value to o.
type Appender[T any] func(o []byte, value T) ([]byte, error)

// Infallible makes an Appender of a runtime append function, which cannot fail.
func Infallible[T any](appendValue func([]byte, T) []byte) Appender[T] {
	return func(o []byte, value T) ([]byte, error) { return appendValue(o, value), nil }
}

// AppendSlice returns the Appender of an array of elements (slices, and
// arrays sliced with [:]).
func AppendSlice[T any](appendElem Appender[T]) Appender[[]T] {
	return func(o []byte, slice []T) ([]byte, error) {
		o = msgp.AppendArrayHeader(o, uint32(len(slice)))
		var err error
		for _, elem := range slice {
			if o, err = appendElem(o, elem); err != nil {
				return o, err
			}
		}
		return o, nil
	}
}

// AppendMap returns the Appender of a map, whose entries are written in Go's
// random iteration order.
func AppendMap[K comparable, V any](appendKey func([]byte, K) []byte, appendValue Appender[V]) Appender[map[K]V] {
	return func(o []byte, m map[K]V) ([]byte, error) {
		o = msgp.AppendMapHeader(o, uint32(len(m)))
		var err error
		for key, value := range m {
			if o, err = appendValue(appendKey(o, key), value); err != nil {
				return o, err
			}
		}
		return o, nil
	}
}

// AppendPointer returns the Appender of a pointer: nil, or the value.
func AppendPointer[T any](appendValue Appender[T]) Appender[*T] {
	return func(o []byte, p *T) ([]byte, error) {
		if p == nil {
			return msgp.AppendNil(o), nil
		}
		return appendValue(o, *p)
	}
}

// Marshaler is a pointer to a struct type with a ZebraPack writer.
type Marshaler[T any] interface {
	*T
	AppendZ(o []byte, structNames bool) ([]byte, error)
}

// AppendStruct returns the Appender of structs of type T.
func AppendStruct[T any, P Marshaler[T]](structNames bool) Appender[T] {
	return func(o []byte, value T) ([]byte, error) { return P(&value).AppendZ(o, structNames) }
}

// AppendIntf appends an interface{} value by its dynamic type, as the
// reference's runtime does: like msgp.AppendIntf, but an extension (inside
// slices and maps too) gets the header of the reference's AppendExtension.
func AppendIntf(o []byte, value any) ([]byte, error) {
	var err error
	switch v := value.(type) {
	case msgp.Extension:
		return AppendExtension(o, v)
	case []any:
		o = msgp.AppendArrayHeader(o, uint32(len(v)))
		for _, item := range v {
			if o, err = AppendIntf(o, item); err != nil {
				return o, err
			}
		}
		return o, nil
	case map[string]any:
		o = msgp.AppendMapHeader(o, uint32(len(v)))
		for key, item := range v {
			if o, err = AppendIntf(msgp.AppendString(o, key), item); err != nil {
				return o, err
			}
		}
		return o, nil
	}
	return msgp.AppendIntf(o, value)
}

// AppendExtension appends an extension as the reference's MarshalMsg path
// (msgp.AppendExtension) writes it: ext8 for every payload of 0..254 bytes
// (its switch over the fixext sizes falls through to the length switch, which
// overwrites the header), ext16 below 65535 bytes, then ext32. The runtime
// here writes fixext1/2/4/8/16 instead, as the reference's EncodeMsg path does.
func AppendExtension(o []byte, e msgp.Extension) ([]byte, error) {
	n := e.Len()
	switch {
	case n < 0xff:
		o = append(o, 0xc7, byte(n))
	case n < 0xffff:
		o = append(o, 0xc8, byte(n>>8), byte(n))
	default:
		o = append(o, 0xc9, byte(n>>24), byte(n>>16), byte(n>>8), byte(n))
	}
	o = append(o, byte(e.ExtensionType()))
	start := len(o)
	o = append(o, make([]byte, n)...)
	return o, e.MarshalBinaryTo(o[start:])
}

// AppendSigned appends an integer of any signed type (named ones too) in the
// smallest signed form.
func AppendSigned[T ~int | ~int8 | ~int16 | ~int32 | ~int64](o []byte, v T) ([]byte, error) {
	return msgp.AppendInt64(o, int64(v)), nil
}

// AppendUnsigned appends an integer of any unsigned type (named ones too) in
// the smallest unsigned form.
func AppendUnsigned[T ~uint | ~uint8 | ~uint16 | ~uint32 | ~uint64](o []byte, v T) ([]byte, error) {
	return msgp.AppendUint64(o, uint64(v)), nil
}
