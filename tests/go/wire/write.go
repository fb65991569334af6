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
	if s.err != nil {
		return
	}
	encoded, err := appendValue(nil, value)
	if err != nil {
		s.err = fmt.Errorf("%s: zid %d: %w", s.name, zid, err)
		return
	}
	s.Field(zid, encoded)
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

// AppendIntf appends an interface{} value by its dynamic type.
var AppendIntf Appender[any] = msgp.AppendIntf
