#if os(Linux)
/// The names of the Secret Service API (spec 0.2) as the provider serves them.
enum ProviderInterface {
    static let busName = "org.freedesktop.secrets"
    static let root = "/org/freedesktop/secrets"
    static let collections = "/org/freedesktop/secrets/collection"
    static let aliases = "/org/freedesktop/secrets/aliases"
    static let sessions = "/org/freedesktop/secrets/session"
    static let prompts = "/org/freedesktop/secrets/prompt"

    static let service = "org.freedesktop.Secret.Service"
    static let collection = "org.freedesktop.Secret.Collection"
    static let item = "org.freedesktop.Secret.Item"
    static let session = "org.freedesktop.Secret.Session"
    static let prompt = "org.freedesktop.Secret.Prompt"

    static let plain = "plain"

    /// The attribute that gives one item its own policy (a `ProtectionPolicy` raw value).
    static let policyAttribute = "biometrics-vault:policy"
    /// The `CreateCollection` property that gives a collection its policy.
    static let collectionPolicyProperty = "io.github.biometricsvault.Collection.Policy"

    enum Error {
        static let isLocked = "org.freedesktop.Secret.Error.IsLocked"
        static let noSession = "org.freedesktop.Secret.Error.NoSession"
        static let noSuchObject = "org.freedesktop.Secret.Error.NoSuchObject"
        static let invalidArgs = "org.freedesktop.DBus.Error.InvalidArgs"
        static let notSupported = "org.freedesktop.DBus.Error.NotSupported"
        static let failed = "org.freedesktop.DBus.Error.Failed"
        static let accessDenied = "org.freedesktop.DBus.Error.AccessDenied"
    }

    static let xml = """
        <node>
          <interface name="org.freedesktop.Secret.Service">
            <method name="OpenSession">
              <arg name="algorithm" type="s" direction="in"/><arg name="input" type="v" direction="in"/>
              <arg name="output" type="v" direction="out"/><arg name="result" type="o" direction="out"/>
            </method>
            <method name="CreateCollection">
              <arg name="properties" type="a{sv}" direction="in"/><arg name="alias" type="s" direction="in"/>
              <arg name="collection" type="o" direction="out"/><arg name="prompt" type="o" direction="out"/>
            </method>
            <method name="SearchItems">
              <arg name="attributes" type="a{ss}" direction="in"/>
              <arg name="unlocked" type="ao" direction="out"/><arg name="locked" type="ao" direction="out"/>
            </method>
            <method name="Unlock">
              <arg name="objects" type="ao" direction="in"/>
              <arg name="unlocked" type="ao" direction="out"/><arg name="prompt" type="o" direction="out"/>
            </method>
            <method name="Lock">
              <arg name="objects" type="ao" direction="in"/>
              <arg name="locked" type="ao" direction="out"/><arg name="Prompt" type="o" direction="out"/>
            </method>
            <method name="GetSecrets">
              <arg name="items" type="ao" direction="in"/><arg name="session" type="o" direction="in"/>
              <arg name="secrets" type="a{o(oayays)}" direction="out"/>
            </method>
            <method name="ReadAlias">
              <arg name="name" type="s" direction="in"/><arg name="collection" type="o" direction="out"/>
            </method>
            <method name="SetAlias">
              <arg name="name" type="s" direction="in"/><arg name="collection" type="o" direction="in"/>
            </method>
            <property name="Collections" type="ao" access="read"/>
            <signal name="CollectionCreated"><arg name="collection" type="o"/></signal>
            <signal name="CollectionDeleted"><arg name="collection" type="o"/></signal>
            <signal name="CollectionChanged"><arg name="collection" type="o"/></signal>
          </interface>
          <interface name="org.freedesktop.Secret.Collection">
            <method name="Delete"><arg name="prompt" type="o" direction="out"/></method>
            <method name="SearchItems">
              <arg name="attributes" type="a{ss}" direction="in"/><arg name="results" type="ao" direction="out"/>
            </method>
            <method name="CreateItem">
              <arg name="properties" type="a{sv}" direction="in"/><arg name="secret" type="(oayays)" direction="in"/>
              <arg name="replace" type="b" direction="in"/>
              <arg name="item" type="o" direction="out"/><arg name="prompt" type="o" direction="out"/>
            </method>
            <property name="Items" type="ao" access="read"/>
            <property name="Label" type="s" access="readwrite"/>
            <property name="Locked" type="b" access="read"/>
            <property name="Created" type="t" access="read"/>
            <property name="Modified" type="t" access="read"/>
            <signal name="ItemCreated"><arg name="item" type="o"/></signal>
            <signal name="ItemDeleted"><arg name="item" type="o"/></signal>
            <signal name="ItemChanged"><arg name="item" type="o"/></signal>
          </interface>
          <interface name="org.freedesktop.Secret.Item">
            <method name="Delete"><arg name="Prompt" type="o" direction="out"/></method>
            <method name="GetSecret">
              <arg name="session" type="o" direction="in"/><arg name="secret" type="(oayays)" direction="out"/>
            </method>
            <method name="SetSecret"><arg name="secret" type="(oayays)" direction="in"/></method>
            <property name="Locked" type="b" access="read"/>
            <property name="Attributes" type="a{ss}" access="readwrite"/>
            <property name="Label" type="s" access="readwrite"/>
            <property name="Type" type="s" access="readwrite"/>
            <property name="Created" type="t" access="read"/>
            <property name="Modified" type="t" access="read"/>
          </interface>
          <interface name="org.freedesktop.Secret.Session">
            <method name="Close"/>
          </interface>
          <interface name="org.freedesktop.Secret.Prompt">
            <method name="Prompt"><arg name="window-id" type="s" direction="in"/></method>
            <method name="Dismiss"/>
            <signal name="Completed"><arg name="dismissed" type="b"/><arg name="result" type="v"/></signal>
          </interface>
        </node>
        """
}
#endif
