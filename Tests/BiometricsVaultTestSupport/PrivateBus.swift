// A private dbus-daemon: Linux only (the D-Bus tests are).
#if os(Linux)
import Foundation
import Glibc

/// A `dbus-daemon` of a test's own, listening on a socket in a directory of its own: it stands in for
/// the session bus (a private keyring, a screen saver's signals) or the system bus (`doctor` with no
/// fprintd). Anyone may own any name and eavesdrop (for `dbus-monitor`); nothing is activated unless a
/// service directory is given. Stopped by ``stop()`` or when released.
package final class PrivateBus {
    package let directory: URL
    package let socket: String
    package var address: String { "unix:path=" + socket }
    private let child: Shell.Child
    private var stopped = false

    /// - Parameters:
    ///   - directory: where the socket goes; a new one in the test scratch directory when `nil`.
    ///   - serviceDirectory: `.service` files the bus may activate.
    package init(in directory: URL? = nil, serviceDirectory: String? = nil) throws {
        self.directory = try directory ?? TestScratch.newDirectory("bus")
        socket = self.directory.appendingPathComponent("bus").path
        let configuration = """
            <!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
             "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
            <busconfig>
              <type>session</type>
              <listen>unix:path=\(socket)</listen>
              <auth>EXTERNAL</auth>
              \(serviceDirectory.map { "<servicedir>\($0)</servicedir>" } ?? "")
              <policy context="default">
                <allow send_destination="*" eavesdrop="true"/>
                <allow eavesdrop="true"/>
                <allow own="*"/>
              </policy>
            </busconfig>
            """
        let configurationFile = self.directory.appendingPathComponent("bus.conf").path
        try configuration.write(toFile: configurationFile, atomically: true, encoding: .utf8)
        child = try Shell.spawn("dbus-daemon", ["--config-file=" + configurationFile, "--nofork", "--nopidfile", "--print-address=1"])
        // The daemon prints its address once it listens: the socket file alone exists from bind(), and a
        // client connecting before listen() is refused (seen in CI under ASan).
        guard (try? Shell.readLine(child.stdout))?.isEmpty == false else {
            stop()
            throw TestFailure("the private dbus-daemon did not start")
        }
    }

    /// The daemon runs and its socket is there.
    package var isListening: Bool {
        !stopped && kill(child.pid, 0) == 0 && FileManager.default.fileExists(atPath: socket)
    }

    /// The environment for a program that should take this bus as its session bus.
    package var sessionEnvironment: [String: String] { ["DBUS_SESSION_BUS_ADDRESS": address] }

    /// Kills the daemon (SIGKILL: a child spawned from a test thread may inherit its blocked SIGTERM)
    /// and waits for it.
    package func stop() {
        guard !stopped else { return }
        stopped = true
        kill(child.pid, SIGKILL)
        var status: Int32 = 0
        while waitpid(child.pid, &status, 0) < 0 && errno == EINTR {}
        for fd in [child.stdin, child.stdout, child.stderr] { close(fd) }
    }

    deinit { stop() }
}
#endif
