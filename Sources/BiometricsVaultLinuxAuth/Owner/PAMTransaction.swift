#if os(Linux)
import BiometricsVaultCore
import CPAM
import Dispatch
import FoundationEssentials
import Glibc

// The PAM choke point: the only file that calls libpam. It runs one pam_start / pam_authenticate /
// pam_acct_mgmt / pam_end transaction and maps every PAM return code to a `VaultError` here, keeping the
// code and its pam_strerror text as the underlying cause. libpam is opened with dlopen on the first
// transaction (`bv_pam_load` in shim.h), not linked: most runs never authenticate the owner.

/// A message PAM asks the application to show, or a question it asks.
public struct PAMMessage: Hashable, Sendable {
    public enum Style: Hashable, Sendable {
        /// A question whose answer must not be echoed (a password). Answer it.
        case promptEchoOff
        /// A question whose answer may be echoed (a user name, a one-time code). Answer it.
        case promptEchoOn
        /// An error to show (e.g. "Authentication failure"). The answer is ignored.
        case errorMessage
        /// Information to show (e.g. "Swipe your right index finger"). The answer is ignored.
        case textInfo
    }

    public var style: Style
    public var text: String

    public init(style: Style, text: String) {
        self.style = style
        self.text = text
    }

    /// Whether PAM waits for an answer.
    public var isPrompt: Bool { style == .promptEchoOff || style == .promptEchoOn }
}

/// The caller's side of a PAM conversation: show `message`; for a prompt, return the answer (or `nil`
/// to decline, which ends the attempt with `userCancel`); throwing ends it with that error.
public typealias PAMConversation = @Sendable (PAMMessage) async throws -> String?

enum PAMTransaction {
    /// Authenticates `user` against the PAM `service` and checks the account. Blocks: run it on a
    /// dedicated thread. `stop` ends the conversation at its next message.
    static func authenticate(
        service: String, user: String, conversation: @escaping PAMConversation, stop: StopRequest
    ) throws(VaultError) {
        let pam = try library.get()
        let context = ConversationContext(conversation: conversation, stop: stop)
        let appdata = Unmanaged.passRetained(context)
        defer { appdata.release() }
        var conv = pam_conv(conv: pamConversation, appdata_ptr: appdata.toOpaque())
        var handle: OpaquePointer?
        let started = pam.pam_start(service, user, &conv, &handle)
        guard started == PAM_SUCCESS, let handle else {
            throw VaultError(.passcodeNotSet, underlying: .pam(code: started, message: message(pam, nil, started)))
        }
        var status = pam.pam_authenticate(handle, 0)
        if status == PAM_SUCCESS {
            status = pam.pam_acct_mgmt(handle, 0)
            // A correct password whose renewal is due still proves the owner is present.
            if status == PAM_NEW_AUTHTOK_REQD { status = PAM_SUCCESS }
        }
        let text = message(pam, handle, status)
        _ = pam.pam_end(handle, status)
        if status == PAM_SUCCESS { return }
        throw vaultError(status: status, text: text, context: context)
    }

    private static func vaultError(status: Int32, text: String, context: ConversationContext) -> VaultError {
        let underlying = VaultError.Underlying.pam(code: status, message: text)
        if let thrown = context.thrown { return thrown }
        if context.stop.reason != nil { return VaultError(.systemCancel, underlying: underlying) }
        if context.declined { return VaultError(.userCancel, underlying: underlying) }
        switch status {
        case PAM_AUTH_ERR, PAM_MAXTRIES, PAM_PERM_DENIED, PAM_USER_UNKNOWN, PAM_CRED_INSUFFICIENT,
            PAM_AUTHINFO_UNAVAIL, PAM_ACCT_EXPIRED, PAM_AUTHTOK_EXPIRED:
            return VaultError(.authenticationFailed, underlying: underlying)
        case PAM_CONV_ERR, PAM_ABORT, PAM_CONV_AGAIN, PAM_INCOMPLETE:
            return VaultError(.userCancel, underlying: underlying)
        default:
            // PAM_SERVICE_ERR, PAM_SYSTEM_ERR, PAM_BUF_ERR, PAM_OPEN_ERR, ...: owner authentication is not
            // usable on this machine (missing or broken service file, module error).
            return VaultError(.passcodeNotSet, underlying: underlying)
        }
    }

    private static func message(_ pam: bv_pam_api, _ handle: OpaquePointer?, _ status: Int32) -> String {
        pam.pam_strerror(handle, status).map { String(cString: $0) } ?? "PAM error \(status)"
    }

    /// libpam, opened by the first transaction of the process. Without it owner authentication cannot
    /// work here: `passcodeNotSet`, as for a missing service file.
    private static let library: Result<bv_pam_api, VaultError> = {
        let api = UnsafeMutablePointer<bv_pam_api>.allocate(capacity: 1)
        defer { api.deallocate() }
        if let missing = bv_pam_load(api) {
            return .failure(VaultError(.passcodeNotSet, underlying: .message(
                "owner authentication needs libpam, which could not be loaded here (\(String(cString: missing))): on Debian or Ubuntu, apt install libpam0g")))
        }
        return .success(api.pointee)
    }()
}

/// State shared with the C conversation callback through `appdata_ptr`.
///
/// Only the PAM thread touches `thrown` and `declined` (PAM calls the conversation on the thread that
/// called pam_authenticate, and `vaultError` reads them after it returned); `running` is locked because
/// the cancellation handler reads it from another thread.
private final class ConversationContext {
    let conversation: PAMConversation
    let stop: StopRequest
    var thrown: VaultError?
    var declined = false
    let running = LockedValue<Task<Void, Never>?>(nil)

    init(conversation: @escaping PAMConversation, stop: StopRequest) {
        self.conversation = conversation
        self.stop = stop
        let running = self.running
        stop.onStop { running.withLock { $0 }?.cancel() }
    }

    /// Asks the caller's async conversation and waits for it on this (PAM's) thread.
    func ask(_ message: PAMMessage) -> Result<String?, VaultError> {
        if stop.reason != nil { return .failure(VaultError(.systemCancel, underlying: .message("task cancelled"))) }
        let answer = LockedValue<Result<String?, VaultError>?>(nil)
        let done = DispatchSemaphore(value: 0)
        let conversation = self.conversation
        let task = Task {
            do {
                let reply = try await conversation(message)
                answer.withLock { $0 = .success(reply) }
            } catch let error as VaultError {
                answer.withLock { $0 = .failure(error) }
            } catch is CancellationError {
                answer.withLock { $0 = .failure(VaultError(.systemCancel, underlying: .message("task cancelled"))) }
            } catch {
                answer.withLock {
                    $0 = .failure(VaultError(.userCancel, underlying: .other(
                        type: String(describing: type(of: error)), summary: "conversation failed")))
                }
            }
            done.signal()
        }
        running.withLock { $0 = task }
        if stop.reason != nil { task.cancel() }
        done.wait()
        running.withLock { $0 = nil }
        return answer.withLock { $0 } ?? .failure(VaultError(.systemCancel))
    }
}

/// libpam's conversation function: translates each message, asks the caller, and hands back replies
/// allocated with malloc (PAM overwrites and frees them).
private let pamConversation:
    @convention(c) (
        Int32, UnsafeMutablePointer<UnsafePointer<pam_message>?>?,
        UnsafeMutablePointer<UnsafeMutablePointer<pam_response>?>?, UnsafeMutableRawPointer?
    ) -> Int32 = { count, messages, responses, appdata in
        guard count > 0, let messages, let responses, let appdata else { return PAM_CONV_ERR }
        let context = Unmanaged<ConversationContext>.fromOpaque(appdata).takeUnretainedValue()
        guard let replies = calloc(Int(count), MemoryLayout<pam_response>.stride)?
            .bindMemory(to: pam_response.self, capacity: Int(count))
        else { return PAM_BUF_ERR }
        func discard() {
            for index in 0..<Int(count) {
                if let answer = replies[index].resp {
                    memset(answer, 0, strlen(answer))
                    free(answer)
                }
            }
            free(replies)
        }
        for index in 0..<Int(count) {
            // Linux-PAM passes an array of pointers to messages.
            guard let message = messages[index]?.pointee else { continue }
            let style: PAMMessage.Style
            switch message.msg_style {
            case PAM_PROMPT_ECHO_OFF: style = .promptEchoOff
            case PAM_PROMPT_ECHO_ON: style = .promptEchoOn
            case PAM_ERROR_MSG: style = .errorMessage
            case PAM_TEXT_INFO: style = .textInfo
            default:
                discard()
                return PAM_CONV_ERR
            }
            let request = PAMMessage(style: style, text: message.msg.map { String(cString: $0) } ?? "")
            switch context.ask(request) {
            case .failure(let error):
                context.thrown = error
                discard()
                return PAM_CONV_ERR
            case .success(let answer):
                guard request.isPrompt else { continue }
                guard let answer else {
                    context.declined = true
                    discard()
                    return PAM_CONV_ERR
                }
                replies[index].resp = strdup(answer)
                replies[index].resp_retcode = 0
            }
        }
        responses.pointee = replies
        return PAM_SUCCESS
    }
#endif
