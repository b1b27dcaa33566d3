#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A closed stdin, stdout or stderr (`>&-`) would be taken by the next file the process opens (a store's
/// lock or item file), and a result printed "to stdout" would land in it. At start each closed one is
/// filled with /dev/null: stdin reads as empty, stdout opened read-only so that every write fails (EBADF)
/// and Console reports it, stderr writable (there is nowhere to report its loss).
enum StandardDescriptors {
    static func occupyClosed() {
        for (fd, flags) in [(STDIN_FILENO, O_RDONLY), (STDOUT_FILENO, O_RDONLY), (STDERR_FILENO, O_WRONLY)]
        where fcntl(fd, F_GETFD) < 0 && errno == EBADF {
            let opened = open("/dev/null", flags)
            if opened >= 0, opened != fd {
                _ = dup2(opened, fd)
                close(opened)
            }
        }
    }
}
