// API-SHAPE STUBS, type-check only. Declared in Package.swift only when the manifest is evaluated on Linux,
// in no product. Every function body traps: nothing here may ever run.
//
// Linux Foundation has no CF bridging (`"x" as CFString`, `[CFString: Any] as CFDictionary` do not
// type-check against the real CoreFoundation module there), so the CF names are aliases of the NS classes,
// which do bridge. Limits of this approximation (NSDictionary passes where Apple wants CFDictionary, NS
// members are visible on "CF" values): Docs/Apple.md, "What is and is not verified on Linux".
// Apple declarations: https://developer.apple.com/documentation/corefoundation
import Foundation

/// Apple: `typealias CFTypeRef = AnyObject` (corefoundation/cftyperef).
public typealias CFTypeRef = AnyObject
public typealias CFString = NSString
public typealias CFDictionary = NSDictionary
public typealias CFArray = NSArray
public typealias CFData = NSData
public typealias CFError = NSError
public typealias CFBoolean = NSNumber
/// Apple: `unsigned long`, i.e. `UInt` on 64-bit platforms.
public typealias CFOptionFlags = UInt
/// Apple: `typealias OSStatus = Int32`.
public typealias OSStatus = Int32

/// Apple: an opaque CF type.
public final class CFAllocator {
    private init() {}
}

/// Apple: `let kCFAllocatorDefault: CFAllocator!` (corefoundation/kcfallocatordefault).
nonisolated(unsafe) public let kCFAllocatorDefault: CFAllocator! = nil
/// Apple: `let kCFBooleanTrue: CFBoolean!` (corefoundation/boolean-values).
public let kCFBooleanTrue: CFBoolean! = NSNumber(value: true)
public let kCFBooleanFalse: CFBoolean! = NSNumber(value: false)

/// Apple: `AutoreleasingUnsafeMutablePointer<NSError?>?`, which does not exist on Linux. `&error` and `nil`
/// type-check the same way with both.
public typealias NSErrorPointer = UnsafeMutablePointer<NSError?>?

/// The body of every stub: type-checking is all these declarations are for.
public func _appleSDKStub(_ function: StaticString = #function) -> Never {
    fatalError("\(function) is a type-check-only Apple SDK stub; it must never run")
}
