#if os(Linux)
import BiometricsVaultCore
internal import CGio

/// A D-Bus value (a GVariant) that this wrapper owns one reference to: a reply, a signal's
/// parameters, or a child of either. Reading never fails loudly: a value of another type reads as `nil`
/// (or empty), and the caller says what it expected.
package final class DBusValue {
    let raw: OpaquePointer

    /// Takes ownership of a (non-floating) reference. Package-wide so that a reply's decoder can be fed
    /// values built without a bus (Fuzz/FuzzSecretServiceReply builds them with GLib).
    package init(taking raw: OpaquePointer) { self.raw = raw }

    /// Adds a reference to a borrowed value.
    init(borrowing raw: OpaquePointer) { self.raw = g_variant_ref(raw) }

    deinit { g_variant_unref(raw) }

    /// The D-Bus type signature (`(oo)`, `a{sv}`).
    package var typeString: String { String(cString: g_variant_get_type_string(raw)) }

    /// The number of children of a tuple, array, dictionary entry or variant.
    package var count: Int { Int(g_variant_n_children(raw)) }

    package subscript(index: Int) -> DBusValue { DBusValue(taking: g_variant_get_child_value(raw, gsize(index))) }

    /// The children of a tuple or an array.
    package var children: [DBusValue] { (0..<count).map { self[$0] } }

    /// The string of an `s`/`o`/`g` value, or of the value inside a `v`.
    package var string: String? {
        switch typeString {
        case "v": unboxed.string
        case "s", "o", "g": String(cString: g_variant_get_string(raw, nil))
        default: nil
        }
    }

    package var bool: Bool? {
        switch typeString {
        case "v": unboxed.bool
        case "b": g_variant_get_boolean(raw) != 0
        default: nil
        }
    }

    package var uint32: UInt32? {
        switch typeString {
        case "v": unboxed.uint32
        case "u": UInt32(g_variant_get_uint32(raw))
        default: nil
        }
    }

    package var uint64: UInt64? {
        switch typeString {
        case "v": unboxed.uint64
        case "t": UInt64(g_variant_get_uint64(raw))
        default: nil
        }
    }

    /// The elements of an `as`/`ao`, or of the first member of an `(as)`/`(ao)` tuple.
    package var strings: [String]? {
        switch typeString {
        case "v": unboxed.strings
        case "(as)", "(ao)": self[0].strings
        case "as", "ao": children.compactMap(\.string)
        default: nil
        }
    }

    /// The bytes of an `ay` (a copy).
    package var bytes: [UInt8]? {
        guard typeString == "ay" else { return nil }
        var count: gsize = 0
        guard let start = g_variant_get_fixed_array(raw, &count, 1), count > 0 else { return [] }
        return Array(UnsafeRawBufferPointer(start: start, count: Int(count)))
    }

    /// The bytes of an `ay` as secret bytes (zeroed when the last copy goes), with no array copy between.
    package var secretBytes: SecretBytes? {
        guard typeString == "ay" else { return nil }
        var count: gsize = 0
        guard let start = g_variant_get_fixed_array(raw, &count, 1), count > 0 else { return SecretBytes([]) }
        return SecretBytes(UnsafeRawBufferPointer(start: start, count: Int(count)))
    }

    /// The entries of an `a{ss}`, in their order.
    package var stringPairs: [(key: String, value: String)]? {
        guard typeString == "a{ss}" else { return nil }
        return children.compactMap { entry in
            guard let key = entry[0].string, let value = entry[1].string else { return nil }
            return (key, value)
        }
    }

    /// The entries of an `a{sv}`, their values unboxed, in their order.
    package var properties: [(key: String, value: DBusValue)]? {
        guard typeString == "a{sv}" else { return nil }
        return children.compactMap { entry in entry[0].string.map { ($0, entry[1].unboxed) } }
    }

    /// The value inside a `v` (the value itself when it is not one).
    package var unboxed: DBusValue { typeString == "v" ? DBusValue(taking: g_variant_get_variant(raw)) : self }

    /// The value an argument built for a call holds (the argument is taken: pass it nowhere else).
    package convenience init(_ argument: DBusArgument) { self.init(taking: g_variant_ref_sink(argument.raw)) }

    /// `bytes` as a serialized value of `type`, untrusted: GLib checks them as they are read, and reads
    /// what is not well formed as its type's default. `nil` for a type that is not one a value can have.
    package convenience init?(serialized bytes: [UInt8], type: String) {
        guard g_variant_type_string_is_valid(type) != 0 else { return nil }
        let variantType = g_variant_type_new(type)
        defer { g_variant_type_free(variantType) }
        guard g_variant_type_is_definite(variantType) != 0 else { return nil }  // `*`, `?`, `r`: no value has them
        let data = bytes.withUnsafeBytes { g_bytes_new($0.baseAddress, gsize($0.count)) }
        defer { g_bytes_unref(data) }
        self.init(taking: g_variant_ref_sink(g_variant_new_from_bytes(variantType, data, 0)))
    }

    /// Whether `other` has the same type and value, compared in normal form.
    package func hasSameValue(as other: DBusValue) -> Bool {
        let left = g_variant_get_normal_form(raw)
        let right = g_variant_get_normal_form(other.raw)
        defer {
            g_variant_unref(left)
            g_variant_unref(right)
        }
        return g_variant_equal(UnsafeRawPointer(left), UnsafeRawPointer(right)) != 0
    }
}

/// An argument for a call: a GVariant that the call consumes. Build arguments with the static
/// functions and pass the top one (a ``tuple(_:)``) to ``DBusConnection/call(_:_:replyType:autoStart:timeout:cancellation:)``.
///
/// Floating by GVariant's rules until a call takes it; an argument built and never passed leaks its
/// GVariant, so build them right where the call is.
package struct DBusArgument {
    let raw: OpaquePointer

    package static func string(_ value: String) -> DBusArgument { DBusArgument(raw: g_variant_new_string(value)) }
    package static func objectPath(_ value: String) -> DBusArgument { DBusArgument(raw: g_variant_new_object_path(value)) }
    package static func bool(_ value: Bool) -> DBusArgument { DBusArgument(raw: g_variant_new_boolean(value ? 1 : 0)) }
    package static func uint32(_ value: UInt32) -> DBusArgument { DBusArgument(raw: g_variant_new_uint32(value)) }
    package static func uint64(_ value: UInt64) -> DBusArgument { DBusArgument(raw: g_variant_new_uint64(guint64(value))) }
    package static func int32(_ value: Int32) -> DBusArgument { DBusArgument(raw: g_variant_new_int32(value)) }
    package static func byte(_ value: UInt8) -> DBusArgument { DBusArgument(raw: g_variant_new_byte(value)) }

    /// A `v` holding `value`.
    package static func variant(_ value: DBusArgument) -> DBusArgument { DBusArgument(raw: g_variant_new_variant(value.raw)) }

    /// An `ay` (a copy of the bytes).
    package static func bytes(_ value: [UInt8]) -> DBusArgument {
        let elementType = g_variant_type_new("y")
        defer { g_variant_type_free(elementType) }
        let padded = value.isEmpty ? [0] : value  // GLib wants a non-NULL pointer; the count stays 0
        return DBusArgument(raw: padded.withUnsafeBytes {
            g_variant_new_fixed_array(elementType, $0.baseAddress, gsize(value.count), 1)
        })
    }

    /// An `ay` of secret bytes (GLib's copy, which the message then holds, is not zeroed).
    package static func secretBytes(_ value: SecretBytes) -> DBusArgument {
        let elementType = g_variant_type_new("y")
        defer { g_variant_type_free(elementType) }
        let padding: [UInt8] = [0]  // GLib wants a non-NULL pointer; the count stays 0
        return DBusArgument(raw: value.withUnsafeBytes { bytes in
            padding.withUnsafeBytes { g_variant_new_fixed_array(elementType, bytes.isEmpty ? $0.baseAddress : bytes.baseAddress, gsize(bytes.count), 1) }
        })
    }

    /// An `ao`.
    package static func objectPaths(_ values: [String]) -> DBusArgument {
        array(of: "o", values.map { objectPath($0) })
    }

    package static func tuple(_ members: [DBusArgument]) -> DBusArgument {
        var members: [OpaquePointer?] = members.map(\.raw)
        return DBusArgument(raw: members.withUnsafeMutableBufferPointer {
            g_variant_new_tuple($0.baseAddress, gsize($0.count))
        })
    }

    /// An `a{sv}` dictionary, in the given order.
    package static func vardict(_ entries: [(String, DBusArgument)]) -> DBusArgument {
        array(of: "{sv}", entries.map { key, value in
            DBusArgument(raw: g_variant_new_dict_entry(g_variant_new_string(key), g_variant_new_variant(value.raw)))
        })
    }

    /// An `a{ss}` dictionary, in the given order (any sequence of pairs, so a caller need not build a
    /// `Dictionary`).
    package static func stringDict(_ entries: some Sequence<(key: String, value: String)>) -> DBusArgument {
        array(of: "{ss}", entries.map { key, value in
            DBusArgument(raw: g_variant_new_dict_entry(g_variant_new_string(key), g_variant_new_string(value)))
        })
    }

    /// A dictionary entry, for ``array(of:_:)`` of a `{..}` type.
    package static func dictEntry(_ key: DBusArgument, _ value: DBusArgument) -> DBusArgument {
        DBusArgument(raw: g_variant_new_dict_entry(key.raw, value.raw))
    }

    /// An array of `elementType` (`"o"`, `"{o(oayays)}"`); an empty one needs the type.
    package static func array(of elementType: String, _ elements: [DBusArgument]) -> DBusArgument {
        let type = g_variant_type_new(elementType)
        defer { g_variant_type_free(type) }
        var raws: [OpaquePointer?] = elements.map(\.raw)
        return DBusArgument(raw: raws.withUnsafeMutableBufferPointer {
            g_variant_new_array(type, $0.baseAddress, gsize($0.count))
        })
    }
}
#endif
