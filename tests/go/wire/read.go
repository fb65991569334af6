// Package wire holds the ZebraPack conventions on top of the msgp runtime:
// struct maps keyed by zids with a -1 struct name, zero values left out, and
// the reference's strict readers, which accept only the encodings of a
// field's declared type.
package wire

import (
	"errors"
	"fmt"
	"time"
	"unsafe"

	"github.com/tinylib/msgp/msgp"
)

// Reader reads one value from the front of b and returns the rest.
type Reader[T any] func(b []byte) (T, []byte, error)

// orZero reads with read, except that a nil reads as the zero value: the
// reference accepts nil wherever a value is expected.
func orZero[T any](b []byte, read Reader[T]) (T, []byte, error) {
	if msgp.IsNil(b) {
		var zero T
		return zero, b[1:], nil
	}
	return read(b)
}

// ReadString reads a str (never a bin).
func ReadString(b []byte) (string, []byte, error) { return orZero(b, msgp.ReadStringBytes) }

// ReadBool reads true or false.
func ReadBool(b []byte) (bool, []byte, error) { return orZero(b, msgp.ReadBoolBytes) }

// ReadFloat64 reads a float64 or a float32.
func ReadFloat64(b []byte) (float64, []byte, error) { return orZero(b, msgp.ReadFloat64Bytes) }

// ReadFloat32 reads a float32 and rejects a float64.
func ReadFloat32(b []byte) (float32, []byte, error) { return orZero(b, msgp.ReadFloat32Bytes) }

// ReadComplex64 reads a fixext8 of type 3.
func ReadComplex64(b []byte) (complex64, []byte, error) {
	return orZero(b, msgp.ReadComplex64Bytes)
}

// ReadComplex128 reads a fixext16 of type 4.
func ReadComplex128(b []byte) (complex128, []byte, error) {
	return orZero(b, msgp.ReadComplex128Bytes)
}

// ReadBytes reads a bin (never a str).
func ReadBytes(b []byte) ([]byte, []byte, error) {
	return orZero(b, func(b []byte) ([]byte, []byte, error) { return msgp.ReadBytesBytes(b, nil) })
}

// ReadTime reads the reference's time: ext8 of length 12 and type 5 holding
// big-endian int64 Unix seconds and uint32 nanoseconds. The runtime also
// accepts the msgpack timestamp (ext -1); the reference does not.
func ReadTime(b []byte) (time.Time, []byte, error) {
	return orZero(b, func(b []byte) (time.Time, []byte, error) {
		if len(b) < 3 || b[0] != 0xc7 || b[1] != 12 || int8(b[2]) != msgp.TimeExtension {
			return time.Time{}, b, fmt.Errorf("time: want an ext8 of 12 bytes and type 5, got %s", msgp.NextType(b))
		}
		return msgp.ReadTimeUTCBytes(b)
	})
}

// ReadInt reads a signed integer of type T. Like the reference, it accepts
// only the signed family (fixints and int8-int64) and rejects the uint family
// even for small values; a value outside T's range is an overflow.
func ReadInt[T ~int | ~int8 | ~int16 | ~int32 | ~int64](b []byte) (T, []byte, error) {
	return orZero(b, func(b []byte) (T, []byte, error) {
		if kind := msgp.NextType(b); kind != msgp.IntType {
			return 0, b, msgp.TypeError{Method: msgp.IntType, Encoded: kind}
		}
		wide, rest, err := msgp.ReadInt64Bytes(b)
		if err != nil {
			return 0, b, err
		}
		if narrow := T(wide); int64(narrow) == wide {
			return narrow, rest, nil
		}
		var zero T
		return 0, b, msgp.IntOverflow{Value: wide, FailedBitsize: bitSize(zero)}
	})
}

// ReadUint reads an unsigned integer of type T. Like the reference, it
// accepts only positive fixints and the uint family, rejecting the int
// family and negative fixints; a value outside T's range is an overflow.
func ReadUint[T ~uint | ~uint8 | ~uint16 | ~uint32 | ~uint64](b []byte) (T, []byte, error) {
	return orZero(b, func(b []byte) (T, []byte, error) {
		positiveFixint := len(b) > 0 && b[0] <= 0x7f
		if kind := msgp.NextType(b); kind != msgp.UintType && !positiveFixint {
			return 0, b, msgp.TypeError{Method: msgp.UintType, Encoded: kind}
		}
		wide, rest, err := msgp.ReadUint64Bytes(b)
		if err != nil {
			return 0, b, err
		}
		if narrow := T(wide); uint64(narrow) == wide {
			return narrow, rest, nil
		}
		var zero T
		return 0, b, msgp.UintOverflow{Value: wide, FailedBitsize: bitSize(zero)}
	})
}

func bitSize[T any](value T) int { return 8 * int(unsafe.Sizeof(value)) }

// ReadSlice returns the Reader of an array of elements (nil reads as an
// empty slice).
func ReadSlice[T any](readElem Reader[T]) Reader[[]T] {
	return func(b []byte) ([]T, []byte, error) {
		if msgp.IsNil(b) {
			return nil, b[1:], nil
		}
		size, b, err := msgp.ReadArrayHeaderBytes(b)
		if err != nil || size == 0 {
			return nil, b, err
		}
		slice := make([]T, size)
		b, err = readElems(b, slice, readElem)
		return slice, b, err
	}
}

// ReadArray reads an array of exactly len(into) elements into into (nil
// reads as all zeros).
func ReadArray[T any](b []byte, into []T, readElem Reader[T]) ([]byte, error) {
	clear(into)
	if msgp.IsNil(b) {
		return b[1:], nil
	}
	size, b, err := msgp.ReadArrayHeaderBytes(b)
	if err != nil {
		return b, err
	}
	if size != uint32(len(into)) {
		return b, msgp.ArrayError{Wanted: uint32(len(into)), Got: size}
	}
	return readElems(b, into, readElem)
}

func readElems[T any](b []byte, into []T, readElem Reader[T]) ([]byte, error) {
	var err error
	for i := range into {
		if into[i], b, err = readElem(b); err != nil {
			return b, fmt.Errorf("element %d: %w", i, err)
		}
	}
	return b, nil
}

// ReadByteArray reads a bin of exactly len(into) bytes into into (nil reads
// as all zeros).
func ReadByteArray(b []byte, into []byte) ([]byte, error) {
	if msgp.IsNil(b) {
		clear(into)
		return b[1:], nil
	}
	return msgp.ReadExactBytes(b, into)
}

// ReadMap returns the Reader of a map (nil reads as an empty map).
func ReadMap[K comparable, V any](readKey Reader[K], readValue Reader[V]) Reader[map[K]V] {
	return func(b []byte) (map[K]V, []byte, error) {
		if msgp.IsNil(b) {
			return nil, b[1:], nil
		}
		size, b, err := msgp.ReadMapHeaderBytes(b)
		if err != nil || size == 0 {
			return nil, b, err
		}
		m := make(map[K]V, size)
		for range size {
			var key K
			if key, b, err = readKey(b); err != nil {
				return nil, b, fmt.Errorf("map key: %w", err)
			}
			if m[key], b, err = readValue(b); err != nil {
				return nil, b, fmt.Errorf("map value of %v: %w", key, err)
			}
		}
		return m, b, nil
	}
}

// ReadPointer returns the Reader of a pointer: nil, or a pointer to a value
// read by readValue.
func ReadPointer[T any](readValue Reader[T]) Reader[*T] {
	return func(b []byte) (*T, []byte, error) {
		if msgp.IsNil(b) {
			return nil, b[1:], nil
		}
		value, b, err := readValue(b)
		if err != nil {
			return nil, b, err
		}
		return &value, b, nil
	}
}

// Unmarshaler is a pointer to a struct type with a ZebraPack reader.
type Unmarshaler[T any] interface {
	*T
	UnmarshalZ(b []byte) ([]byte, error)
}

// ReadStruct reads a struct of type T.
func ReadStruct[T any, P Unmarshaler[T]](b []byte) (T, []byte, error) {
	var value T
	b, err := P(&value).UnmarshalZ(b)
	return value, b, err
}

// ReadFields reads the struct map of the struct called name, calling
// readField for each zid entry; readField skips the zids it does not know
// (data from a newer schema). A -1 entry must name the struct. Fields that
// are not on the wire are left alone: the caller zeroes the struct first.
// A nil reads as a struct with every field zero.
func ReadFields(b []byte, name string, readField func(zid int64, b []byte) ([]byte, error)) ([]byte, error) {
	if msgp.IsNil(b) {
		return b[1:], nil
	}
	entries, b, err := msgp.ReadMapHeaderBytes(b)
	if err != nil {
		return b, fmt.Errorf("%s: %w", name, err)
	}
	for range entries {
		var zid int64
		if zid, b, err = ReadInt[int64](b); err != nil {
			return b, fmt.Errorf("%s: key: %w", name, err)
		}
		if zid == structNameKey {
			var onWire string
			if onWire, b, err = msgp.ReadStringBytes(b); err != nil {
				return b, fmt.Errorf("%s: struct name: %w", name, err)
			}
			if onWire != name {
				return b, fmt.Errorf("%s: the struct name on the wire is %q", name, onWire)
			}
			continue
		}
		if b, err = readField(zid, b); err != nil {
			return b, fmt.Errorf("%s: zid %d: %w", name, zid, err)
		}
	}
	return b, nil
}

// Record is a struct type with a ZebraPack reader and writer.
type Record interface {
	UnmarshalZ(b []byte) ([]byte, error)
	AppendZ(o []byte, structNames bool) ([]byte, error)
}

// StructName is the -1 entry of the struct map at the front of b, which is
// how the reference learns the concrete type of an interface-typed field
// (its generated readers ask NewValueAsInterface for a value of that name).
func StructName(b []byte) (string, error) {
	entries, b, err := msgp.ReadMapHeaderBytes(b)
	if err != nil {
		return "", err
	}
	for range entries {
		var key int64
		if key, b, err = ReadInt[int64](b); err != nil {
			return "", fmt.Errorf("key: %w", err)
		}
		if key == structNameKey {
			name, _, err := msgp.ReadStringBytes(b)
			return name, err
		}
		if b, err = msgp.Skip(b); err != nil {
			return "", err
		}
	}
	return "", errors.New("no struct name (-1) in the map of an interface-typed value")
}
