function __biometrics-vault_should_offer_completions_for_flags_or_options -a expected_commands
    set -l non_repeating_flags_or_options $argv[2..]
    set -l non_repeating_flags_or_options_absent 0
    set -l positional_index 0
    set -l commands
    __biometrics-vault_parse_tokens
    test "$commands" = "$expected_commands"; and return $non_repeating_flags_or_options_absent
end

function __biometrics-vault_should_offer_completions_for_positional -a expected_commands positional_index_comparison expected_positional_index
    set -l non_repeating_flags_or_options
    set -l non_repeating_flags_or_options_absent 0
    set -l positional_index 0
    set -l commands
    __biometrics-vault_parse_tokens
    test "$commands" = "$expected_commands" -a \( "$positional_index" "$positional_index_comparison" "$expected_positional_index" \)
end

function __biometrics-vault_parse_tokens -S
    set -l unparsed_tokens (__biometrics-vault_tokens -pc)
    switch $unparsed_tokens[1]
    case 'biometrics-vault'
        __biometrics-vault_parse_subcommand 0 'version' 'h/help'
        switch $unparsed_tokens[1]
        case 'status'
            __biometrics-vault_parse_subcommand 1 'service=' 'store=' 'authenticator=' 'json' 'verbose' 'pin-stdin' 'passphrase-stdin' 'unlock-window=' 'version' 'h/help'
        case 'store'
            __biometrics-vault_parse_subcommand 1 'service=' 'store=' 'authenticator=' 'json' 'verbose' 'pin-stdin' 'passphrase-stdin' 'unlock-window=' 'from-file=' 'biometrics' 'version' 'h/help'
        case 'show'
            __biometrics-vault_parse_subcommand 1 'service=' 'store=' 'authenticator=' 'json' 'verbose' 'pin-stdin' 'passphrase-stdin' 'unlock-window=' 'field=' 'version' 'h/help'
        case 'update'
            __biometrics-vault_parse_subcommand 1 'service=' 'store=' 'authenticator=' 'json' 'verbose' 'pin-stdin' 'passphrase-stdin' 'unlock-window=' 'from-file=' 'version' 'h/help'
        case 'upgrade'
            __biometrics-vault_parse_subcommand 1 'service=' 'store=' 'authenticator=' 'json' 'verbose' 'pin-stdin' 'passphrase-stdin' 'unlock-window=' 'version' 'h/help'
        case 'downgrade'
            __biometrics-vault_parse_subcommand 1 'service=' 'store=' 'authenticator=' 'json' 'verbose' 'pin-stdin' 'passphrase-stdin' 'unlock-window=' 'version' 'h/help'
        case 'reset'
            __biometrics-vault_parse_subcommand 1 'service=' 'store=' 'authenticator=' 'json' 'verbose' 'pin-stdin' 'passphrase-stdin' 'unlock-window=' 'version' 'h/help'
        case 'list'
            __biometrics-vault_parse_subcommand 0 'service=' 'store=' 'authenticator=' 'json' 'verbose' 'pin-stdin' 'passphrase-stdin' 'unlock-window=' 'version' 'h/help'
        case 'import'
            __biometrics-vault_parse_subcommand 0 'service=' 'store=' 'authenticator=' 'json' 'verbose' 'pin-stdin' 'passphrase-stdin' 'unlock-window=' 'from-service=' 'username=' 'key=' 'as-string' 'remove-source' 'version' 'h/help'
        case 'doctor'
            __biometrics-vault_parse_subcommand 0 'service=' 'store=' 'authenticator=' 'json' 'verbose' 'pin-stdin' 'passphrase-stdin' 'unlock-window=' 'version' 'h/help'
        case 'setup'
            __biometrics-vault_parse_subcommand 0 'service=' 'store=' 'authenticator=' 'json' 'verbose' 'pin-stdin' 'passphrase-stdin' 'unlock-window=' 'uninstall' 'resources=' 'root=' 'version' 'h/help'
        case 'git-credential'
            __biometrics-vault_parse_subcommand 1 'service=' 'store=' 'authenticator=' 'json' 'verbose' 'pin-stdin' 'passphrase-stdin' 'unlock-window=' 'biometrics' 'version' 'h/help'
        case 'docker-credential'
            __biometrics-vault_parse_subcommand 1 'service=' 'store=' 'authenticator=' 'json' 'verbose' 'pin-stdin' 'passphrase-stdin' 'unlock-window=' 'version' 'h/help'
        case 'exec'
            __biometrics-vault_parse_subcommand -r 2 'service=' 'store=' 'authenticator=' 'json' 'verbose' 'pin-stdin' 'passphrase-stdin' 'unlock-window=' 'env=+' 'version' 'h/help'
        case 'clear-lockout'
            __biometrics-vault_parse_subcommand 0 'service=' 'store=' 'authenticator=' 'json' 'verbose' 'pin-stdin' 'passphrase-stdin' 'unlock-window=' 'version' 'h/help'
        case 'key'
            __biometrics-vault_parse_subcommand 0 'version' 'h/help'
            switch $unparsed_tokens[1]
            case 'status'
                __biometrics-vault_parse_subcommand 0 'service=' 'store=' 'authenticator=' 'json' 'verbose' 'pin-stdin' 'passphrase-stdin' 'unlock-window=' 'version' 'h/help'
            case 'seal'
                __biometrics-vault_parse_subcommand 0 'service=' 'store=' 'authenticator=' 'json' 'verbose' 'pin-stdin' 'passphrase-stdin' 'unlock-window=' 'tpm' 'pin' 'version' 'h/help'
            case 'unseal'
                __biometrics-vault_parse_subcommand 0 'service=' 'store=' 'authenticator=' 'json' 'verbose' 'pin-stdin' 'passphrase-stdin' 'unlock-window=' 'version' 'h/help'
            case 'passphrase'
                __biometrics-vault_parse_subcommand 0 'service=' 'store=' 'authenticator=' 'json' 'verbose' 'pin-stdin' 'passphrase-stdin' 'unlock-window=' 'version' 'h/help'
            end
        case 'agent'
            __biometrics-vault_parse_subcommand 0 'idle-exit=' 'status' 'service=' 'store=' 'authenticator=' 'json' 'verbose' 'pin-stdin' 'passphrase-stdin' 'unlock-window=' 'version' 'h/help'
        case 'lock'
            __biometrics-vault_parse_subcommand 0 'service=' 'store=' 'authenticator=' 'json' 'verbose' 'pin-stdin' 'passphrase-stdin' 'unlock-window=' 'version' 'h/help'
        case 'help'
            __biometrics-vault_parse_subcommand -r 1 'version'
        end
    end
end

function __biometrics-vault_tokens
    if test (string split -m 1 -f 1 -- . "$FISH_VERSION") -gt 3
        commandline --tokens-raw $argv
    else
        commandline -o $argv
    end
end

function __biometrics-vault_parse_subcommand -S -a positional_count
    argparse -s r -- $argv
    set -l option_specs $argv[2..]
    set -l is_repeating_positional $_flag_r
    set -el _flag_r
    set -a commands $unparsed_tokens[1]
    set positional_index 0
    while true
        set -e unparsed_tokens[1]
        argparse -sn "$commands" $option_specs -- $unparsed_tokens 2> /dev/null
        set unparsed_tokens $argv
        set positional_index (math $positional_index + 1)
        for non_repeating_flag_or_option in $non_repeating_flags_or_options
            if set -ql "_flag_$(string replace -a - _ -- $non_repeating_flag_or_option)"
                set non_repeating_flags_or_options_absent 1
                break
            end
        end
        test (count $unparsed_tokens) -eq 0 -o \( -z "$is_repeating_positional" -a "$positional_index" -gt "$positional_count" \) && break
    end
end

function __biometrics-vault_complete_directories
    set -l token (commandline -t)
    string match -- '*/' $token
    set -l subdirs $token*/
    printf %s\n $subdirs
end

function __biometrics-vault_custom_completion
    set -x SAP_SHELL fish
    set -x SAP_SHELL_VERSION $FISH_VERSION
    set -l tokens (__biometrics-vault_tokens -p)
    if test -z "$(__biometrics-vault_tokens -t)"
        set -l index (count (__biometrics-vault_tokens -pc))
        set tokens $tokens[..$index] \'\' $tokens[(math $index + 1)..]
    end
    command $tokens[1] $argv $tokens
end

complete -c 'biometrics-vault' -f
complete -c 'biometrics-vault' -n '__biometrics-vault_should_offer_completions_for_flags_or_options "biometrics-vault" version' -l 'version' -d 'Show the version.'
complete -c 'biometrics-vault' -n '__biometrics-vault_should_offer_completions_for_flags_or_options "biometrics-vault" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'biometrics-vault' -n '__biometrics-vault_should_offer_completions_for_positional "biometrics-vault" -eq 1' -fa 'status' -d 'Show whether KEY is stored, and how it is protected. Never prompts.'
complete -c 'biometrics-vault' -n '__biometrics-vault_should_offer_completions_for_positional "biometrics-vault" -eq 1' -fa 'store' -d 'Store the JSON credentials on stdin under KEY (KEY must be empty; see `update`).'
complete -c 'biometrics-vault' -n '__biometrics-vault_should_offer_completions_for_positional "biometrics-vault" -eq 1' -fa 'show' -d 'Print the credentials stored under KEY as JSON (unlocks a protected item: one prompt).'
complete -c 'biometrics-vault' -n '__biometrics-vault_should_offer_completions_for_positional "biometrics-vault" -eq 1' -fa 'update' -d 'Replace the credentials under KEY with the JSON on stdin, keeping their protection (a protected item prompts once).'
complete -c 'biometrics-vault' -n '__biometrics-vault_should_offer_completions_for_positional "biometrics-vault" -eq 1' -fa 'upgrade' -d 'Protect the plainly stored credentials under KEY with your fingerprint (one prompt).'
complete -c 'biometrics-vault' -n '__biometrics-vault_should_offer_completions_for_positional "biometrics-vault" -eq 1' -fa 'downgrade' -d 'Store the protected credentials under KEY plainly again (unlocks first: one prompt).'
complete -c 'biometrics-vault' -n '__biometrics-vault_should_offer_completions_for_positional "biometrics-vault" -eq 1' -fa 'reset' -d 'Delete the credentials under KEY, protected, invalidated or unreadable alike. Never prompts; exits 0 when nothing was stored.'
complete -c 'biometrics-vault' -n '__biometrics-vault_should_offer_completions_for_positional "biometrics-vault" -eq 1' -fa 'list' -d 'List the keys stored under --service, one per line. Never prompts. Items that cannot be read are counted on stderr (exit 11).'
complete -c 'biometrics-vault' -n '__biometrics-vault_should_offer_completions_for_positional "biometrics-vault" -eq 1' -fa 'import' -d 'Adopt a Secret Service item written by secret-tool or python keyring (attributes service, username) as a plain item.'
complete -c 'biometrics-vault' -n '__biometrics-vault_should_offer_completions_for_positional "biometrics-vault" -eq 1' -fa 'doctor' -d 'Show each store and authenticator, whether it is usable here (and why not), and which one auto picks. Never prompts.'
complete -c 'biometrics-vault' -n '__biometrics-vault_should_offer_completions_for_positional "biometrics-vault" -eq 1' -fa 'setup' -d 'Install the PAM service file and the polkit policy (as root), or remove them with --uninstall.'
complete -c 'biometrics-vault' -n '__biometrics-vault_should_offer_completions_for_positional "biometrics-vault" -eq 1' -fa 'git-credential' -d 'A git credential helper: get, store and erase what git asks for (see gitcredentials(7)).'
complete -c 'biometrics-vault' -n '__biometrics-vault_should_offer_completions_for_positional "biometrics-vault" -eq 1' -fa 'docker-credential' -d 'A docker credential helper: get, store, erase, list (docker-credential-helpers protocol).'
complete -c 'biometrics-vault' -n '__biometrics-vault_should_offer_completions_for_positional "biometrics-vault" -eq 1' -fa 'exec' -d 'Run COMMAND with fields of the credentials under KEY in its environment (one prompt for a protected item).'
complete -c 'biometrics-vault' -n '__biometrics-vault_should_offer_completions_for_positional "biometrics-vault" -eq 1' -fa 'clear-lockout' -d 'End the fingerprint lockout after 5 failed attempts: asks for your login password (PAM on the terminal, or polkit). Exits 0 without asking when nothing is locked out.'
complete -c 'biometrics-vault' -n '__biometrics-vault_should_offer_completions_for_positional "biometrics-vault" -eq 1' -fa 'key' -d 'Show or change what protects the encrypted file store\'s key: a key file, a passphrase, or the TPM (with an optional PIN).'
complete -c 'biometrics-vault' -n '__biometrics-vault_should_offer_completions_for_positional "biometrics-vault" -eq 1' -fa 'agent' -d 'Run the unlock-window agent in the foreground (commands with --unlock-window start it when needed).'
complete -c 'biometrics-vault' -n '__biometrics-vault_should_offer_completions_for_positional "biometrics-vault" -eq 1' -fa 'lock' -d 'Close every unlock window now (see `agent`): the next read of a protected item prompts again.'
complete -c 'biometrics-vault' -n '__biometrics-vault_should_offer_completions_for_positional "biometrics-vault" -eq 1' -fa 'help' -d 'Show subcommand help information.'
complete -c 'biometrics-vault' -n '__biometrics-vault_should_offer_completions_for_flags_or_options "biometrics-vault status" service' -l 'service' -d 'The namespace of the keys (Secret Service attribute `service`).' -rfka ''
complete -c 'biometrics-vault' -n '__biometrics-vault_should_offer_completions_for_flags_or_options "biometrics-vault status" store' -l 'store' -d 'Where credentials live: auto picks the Secret Service when one answers on the session bus, else the encrypted file store.' -rfka 'auto secret-service file'
complete -c 'biometrics-vault' -n '__biometrics-vault_should_offer_completions_for_flags_or_options "biometrics-vault status" authenticator' -l 'authenticator' -d 'Who authenticates the owner: auto uses fprintd when a finger is enrolled; pam / polkit gate protected items by the login password; none stores plainly only.' -rfka 'auto fprintd pam polkit none'
complete -c 'biometrics-vault' -n '__biometrics-vault_should_offer_completions_for_flags_or_options "biometrics-vault status" json' -l 'json' -d 'Print results (and errors, on stderr) as JSON.'
complete -c 'biometrics-vault' -n '__biometrics-vault_should_offer_completions_for_flags_or_options "biometrics-vault status" verbose' -l 'verbose' -d 'Also explain on stderr what auto chose and why, with the libraries\' error details.'
complete -c 'biometrics-vault' -n '__biometrics-vault_should_offer_completions_for_flags_or_options "biometrics-vault status" pin-stdin' -l 'pin-stdin' -d 'Read the file store\'s TPM PIN from the first line of stdin instead of the terminal (`key` verbs: one line per PIN, the current one first).'
complete -c 'biometrics-vault' -n '__biometrics-vault_should_offer_completions_for_flags_or_options "biometrics-vault status" passphrase-stdin' -l 'passphrase-stdin' -d 'Read the file store\'s passphrase from the first line of stdin instead of the terminal (`key` verbs: one line per passphrase, the current one first).'
complete -c 'biometrics-vault' -n '__biometrics-vault_should_offer_completions_for_flags_or_options "biometrics-vault status" unlock-window' -l 'unlock-window' -d 'Keep protected items of this service open for this terminal for DURATION after one authentication (90, 90s, 15m, 1h; 0 or off: never). Default: $BIOMETRICS_VAULT_UNLOCK_WINDOW, else off. See `biometrics-vault agent --help`.' -rfka ''
complete -c 'biometrics-vault' -n '__biometrics-vault_should_offer_completions_for_flags_or_options "biometrics-vault status" version' -l 'version' -d 'Show the version.'
complete -c 'biometrics-vault' -n '__biometrics-vault_should_offer_completions_for_flags_or_options "biometrics-vault status" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'biometrics-vault' -n '__biometrics-vault_should_offer_completions_for_flags_or_options "biometrics-vault store" service' -l 'service' -d 'The namespace of the keys (Secret Service attribute `service`).' -rfka ''
complete -c 'biometrics-vault' -n '__biometrics-vault_should_offer_completions_for_flags_or_options "biometrics-vault store" store' -l 'store' -d 'Where credentials live: auto picks the Secret Service when one answers on the session bus, else the encrypted file store.' -rfka 'auto secret-service file'
complete -c 'biometrics-vault' -n '__biometrics-vault_should_offer_completions_for_flags_or_options "biometrics-vault store" authenticator' -l 'authenticator' -d 'Who authenticates the owner: auto uses fprintd when a finger is enrolled; pam / polkit gate protected items by the login password; none stores plainly only.' -rfka 'auto fprintd pam polkit none'
complete -c 'biometrics-vault' -n '__biometrics-vault_should_offer_completions_for_flags_or_options "biometrics-vault store" json' -l 'json' -d 'Print results (and errors, on stderr) as JSON.'
complete -c 'biometrics-vault' -n '__biometrics-vault_should_offer_completions_for_flags_or_options "biometrics-vault store" verbose' -l 'verbose' -d 'Also explain on stderr what auto chose and why, with the libraries\' error details.'
complete -c 'biometrics-vault' -n '__biometrics-vault_should_offer_completions_for_flags_or_options "biometrics-vault store" pin-stdin' -l 'pin-stdin' -d 'Read the file store\'s TPM PIN from the first line of stdin instead of the terminal (`key` verbs: one line per PIN, the current one first).'
complete -c 'biometrics-vault' -n '__biometrics-vault_should_offer_completions_for_flags_or_options "biometrics-vault store" passphrase-stdin' -l 'passphrase-stdin' -d 'Read the file store\'s passphrase from the first line of stdin instead of the terminal (`key` verbs: one line per passphrase, the current one first).'
complete -c 'biometrics-vault' -n '__biometrics-vault_should_offer_completions_for_flags_or_options "biometrics-vault store" unlock-window' -l 'unlock-window' -d 'Keep protected items of this service open for this terminal for DURATION after one authentication (90, 90s, 15m, 1h; 0 or off: never). Default: $BIOMETRICS_VAULT_UNLOCK_WINDOW, else off. See `biometrics-vault agent --help`.' -rfka ''
complete -c 'biometrics-vault' -n '__biometrics-vault_should_offer_completions_for_flags_or_options "biometrics-vault store" from-file' -l 'from-file' -d 'Read the credentials JSON from this file instead of stdin (\'-\' is stdin).' -rfka ''
complete -c 'biometrics-vault' -n '__biometrics-vault_should_offer_completions_for_flags_or_options "biometrics-vault store" biometrics' -l 'biometrics' -d 'Protect the credentials: a fingerprint (or, with --authenticator pam/polkit, the login password) unlocks them. Prompts once now.'
complete -c 'biometrics-vault' -n '__biometrics-vault_should_offer_completions_for_flags_or_options "biometrics-vault store" version' -l 'version' -d 'Show the version.'
complete -c 'biometrics-vault' -n '__biometrics-vault_should_offer_completions_for_flags_or_options "biometrics-vault store" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'biometrics-vault' -n '__biometrics-vault_should_offer_completions_for_flags_or_options "biometrics-vault show" service' -l 'service' -d 'The namespace of the keys (Secret Service attribute `service`).' -rfka ''
complete -c 'biometrics-vault' -n '__biometrics-vault_should_offer_completions_for_flags_or_options "biometrics-vault show" store' -l 'store' -d 'Where credentials live: auto picks the Secret Service when one answers on the session bus, else the encrypted file store.' -rfka 'auto secret-service file'
complete -c 'biometrics-vault' -n '__biometrics-vault_should_offer_completions_for_flags_or_options "biometrics-vault show" authenticator' -l 'authenticator' -d 'Who authenticates the owner: auto uses fprintd when a finger is enrolled; pam / polkit gate protected items by the login password; none stores plainly only.' -rfka 'auto fprintd pam polkit none'
complete -c 'biometrics-vault' -n '__biometrics-vault_should_offer_completions_for_flags_or_options "biometrics-vault show" json' -l 'json' -d 'Print results (and errors, on stderr) as JSON.'
complete -c 'biometrics-vault' -n '__biometrics-vault_should_offer_completions_for_flags_or_options "biometrics-vault show" verbose' -l 'verbose' -d 'Also explain on stderr what auto chose and why, with the libraries\' error details.'
complete -c 'biometrics-vault' -n '__biometrics-vault_should_offer_completions_for_flags_or_options "biometrics-vault show" pin-stdin' -l 'pin-stdin' -d 'Read the file store\'s TPM PIN from the first line of stdin instead of the terminal (`key` verbs: one line per PIN, the current one first).'
complete -c 'biometrics-vault' -n '__biometrics-vault_should_offer_completions_for_flags_or_options "biometrics-vault show" passphrase-stdin' -l 'passphrase-stdin' -d 'Read the file store\'s passphrase from the first line of stdin instead of the terminal (`key` verbs: one line per passphrase, the current one first).'
complete -c 'biometrics-vault' -n '__biometrics-vault_should_offer_completions_for_flags_or_options "biometrics-vault show" unlock-window' -l 'unlock-window' -d 'Keep protected items of this service open for this terminal for DURATION after one authentication (90, 90s, 15m, 1h; 0 or off: never). Default: $BIOMETRICS_VAULT_UNLOCK_WINDOW, else off. See `biometrics-vault agent --help`.' -rfka ''
complete -c 'biometrics-vault' -n '__biometrics-vault_should_offer_completions_for_flags_or_options "biometrics-vault show" field' -l 'field' -d 'Print only this top-level field, raw (strings without quotes; with --json, as JSON). On a terminal, control characters are shown escaped.' -rfka ''
complete -c 'biometrics-vault' -n '__biometrics-vault_should_offer_completions_for_flags_or_options "biometrics-vault show" version' -l 'version' -d 'Show the version.'
complete -c 'biometrics-vault' -n '__biometrics-vault_should_offer_completions_for_flags_or_options "biometrics-vault show" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'biometrics-vault' -n '__biometrics-vault_should_offer_completions_for_flags_or_options "biometrics-vault update" service' -l 'service' -d 'The namespace of the keys (Secret Service attribute `service`).' -rfka ''
complete -c 'biometrics-vault' -n '__biometrics-vault_should_offer_completions_for_flags_or_options "biometrics-vault update" store' -l 'store' -d 'Where credentials live: auto picks the Secret Service when one answers on the session bus, else the encrypted file store.' -rfka 'auto secret-service file'
complete -c 'biometrics-vault' -n '__biometrics-vault_should_offer_completions_for_flags_or_options "biometrics-vault update" authenticator' -l 'authenticator' -d 'Who authenticates the owner: auto uses fprintd when a finger is enrolled; pam / polkit gate protected items by the login password; none stores plainly only.' -rfka 'auto fprintd pam polkit none'
complete -c 'biometrics-vault' -n '__biometrics-vault_should_offer_completions_for_flags_or_options "biometrics-vault update" json' -l 'json' -d 'Print results (and errors, on stderr) as JSON.'
complete -c 'biometrics-vault' -n '__biometrics-vault_should_offer_completions_for_flags_or_options "biometrics-vault update" verbose' -l 'verbose' -d 'Also explain on stderr what auto chose and why, with the libraries\' error details.'
complete -c 'biometrics-vault' -n '__biometrics-vault_should_offer_completions_for_flags_or_options "biometrics-vault update" pin-stdin' -l 'pin-stdin' -d 'Read the file store\'s TPM PIN from the first line of stdin instead of the terminal (`key` verbs: one line per PIN, the current one first).'
complete -c 'biometrics-vault' -n '__biometrics-vault_should_offer_completions_for_flags_or_options "biometrics-vault update" passphrase-stdin' -l 'passphrase-stdin' -d 'Read the file store\'s passphrase from the first line of stdin instead of the terminal (`key` verbs: one line per passphrase, the current one first).'
complete -c 'biometrics-vault' -n '__biometrics-vault_should_offer_completions_for_flags_or_options "biometrics-vault update" unlock-window' -l 'unlock-window' -d 'Keep protected items of this service open for this terminal for DURATION after one authentication (90, 90s, 15m, 1h; 0 or off: never). Default: $BIOMETRICS_VAULT_UNLOCK_WINDOW, else off. See `biometrics-vault agent --help`.' -rfka ''
complete -c 'biometrics-vault' -n '__biometrics-vault_should_offer_completions_for_flags_or_options "biometrics-vault update" from-file' -l 'from-file' -d 'Read the credentials JSON from this file instead of stdin (\'-\' is stdin).' -rfka ''
complete -c 'biometrics-vault' -n '__biometrics-vault_should_offer_completions_for_flags_or_options "biometrics-vault update" version' -l 'version' -d 'Show the version.'
complete -c 'biometrics-vault' -n '__biometrics-vault_should_offer_completions_for_flags_or_options "biometrics-vault update" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'biometrics-vault' -n '__biometrics-vault_should_offer_completions_for_flags_or_options "biometrics-vault upgrade" service' -l 'service' -d 'The namespace of the keys (Secret Service attribute `service`).' -rfka ''
complete -c 'biometrics-vault' -n '__biometrics-vault_should_offer_completions_for_flags_or_options "biometrics-vault upgrade" store' -l 'store' -d 'Where credentials live: auto picks the Secret Service when one answers on the session bus, else the encrypted file store.' -rfka 'auto secret-service file'
complete -c 'biometrics-vault' -n '__biometrics-vault_should_offer_completions_for_flags_or_options "biometrics-vault upgrade" authenticator' -l 'authenticator' -d 'Who authenticates the owner: auto uses fprintd when a finger is enrolled; pam / polkit gate protected items by the login password; none stores plainly only.' -rfka 'auto fprintd pam polkit none'
complete -c 'biometrics-vault' -n '__biometrics-vault_should_offer_completions_for_flags_or_options "biometrics-vault upgrade" json' -l 'json' -d 'Print results (and errors, on stderr) as JSON.'
complete -c 'biometrics-vault' -n '__biometrics-vault_should_offer_completions_for_flags_or_options "biometrics-vault upgrade" verbose' -l 'verbose' -d 'Also explain on stderr what auto chose and why, with the libraries\' error details.'
complete -c 'biometrics-vault' -n '__biometrics-vault_should_offer_completions_for_flags_or_options "biometrics-vault upgrade" pin-stdin' -l 'pin-stdin' -d 'Read the file store\'s TPM PIN from the first line of stdin instead of the terminal (`key` verbs: one line per PIN, the current one first).'
complete -c 'biometrics-vault' -n '__biometrics-vault_should_offer_completions_for_flags_or_options "biometrics-vault upgrade" passphrase-stdin' -l 'passphrase-stdin' -d 'Read the file store\'s passphrase from the first line of stdin instead of the terminal (`key` verbs: one line per passphrase, the current one first).'
complete -c 'biometrics-vault' -n '__biometrics-vault_should_offer_completions_for_flags_or_options "biometrics-vault upgrade" unlock-window' -l 'unlock-window' -d 'Keep protected items of this service open for this terminal for DURATION after one authentication (90, 90s, 15m, 1h; 0 or off: never). Default: $BIOMETRICS_VAULT_UNLOCK_WINDOW, else off. See `biometrics-vault agent --help`.' -rfka ''
complete -c 'biometrics-vault' -n '__biometrics-vault_should_offer_completions_for_flags_or_options "biometrics-vault upgrade" version' -l 'version' -d 'Show the version.'
complete -c 'biometrics-vault' -n '__biometrics-vault_should_offer_completions_for_flags_or_options "biometrics-vault upgrade" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'biometrics-vault' -n '__biometrics-vault_should_offer_completions_for_flags_or_options "biometrics-vault downgrade" service' -l 'service' -d 'The namespace of the keys (Secret Service attribute `service`).' -rfka ''
complete -c 'biometrics-vault' -n '__biometrics-vault_should_offer_completions_for_flags_or_options "biometrics-vault downgrade" store' -l 'store' -d 'Where credentials live: auto picks the Secret Service when one answers on the session bus, else the encrypted file store.' -rfka 'auto secret-service file'
complete -c 'biometrics-vault' -n '__biometrics-vault_should_offer_completions_for_flags_or_options "biometrics-vault downgrade" authenticator' -l 'authenticator' -d 'Who authenticates the owner: auto uses fprintd when a finger is enrolled; pam / polkit gate protected items by the login password; none stores plainly only.' -rfka 'auto fprintd pam polkit none'
complete -c 'biometrics-vault' -n '__biometrics-vault_should_offer_completions_for_flags_or_options "biometrics-vault downgrade" json' -l 'json' -d 'Print results (and errors, on stderr) as JSON.'
complete -c 'biometrics-vault' -n '__biometrics-vault_should_offer_completions_for_flags_or_options "biometrics-vault downgrade" verbose' -l 'verbose' -d 'Also explain on stderr what auto chose and why, with the libraries\' error details.'
complete -c 'biometrics-vault' -n '__biometrics-vault_should_offer_completions_for_flags_or_options "biometrics-vault downgrade" pin-stdin' -l 'pin-stdin' -d 'Read the file store\'s TPM PIN from the first line of stdin instead of the terminal (`key` verbs: one line per PIN, the current one first).'
complete -c 'biometrics-vault' -n '__biometrics-vault_should_offer_completions_for_flags_or_options "biometrics-vault downgrade" passphrase-stdin' -l 'passphrase-stdin' -d 'Read the file store\'s passphrase from the first line of stdin instead of the terminal (`key` verbs: one line per passphrase, the current one first).'
complete -c 'biometrics-vault' -n '__biometrics-vault_should_offer_completions_for_flags_or_options "biometrics-vault downgrade" unlock-window' -l 'unlock-window' -d 'Keep protected items of this service open for this terminal for DURATION after one authentication (90, 90s, 15m, 1h; 0 or off: never). Default: $BIOMETRICS_VAULT_UNLOCK_WINDOW, else off. See `biometrics-vault agent --help`.' -rfka ''
complete -c 'biometrics-vault' -n '__biometrics-vault_should_offer_completions_for_flags_or_options "biometrics-vault downgrade" version' -l 'version' -d 'Show the version.'
complete -c 'biometrics-vault' -n '__biometrics-vault_should_offer_completions_for_flags_or_options "biometrics-vault downgrade" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'biometrics-vault' -n '__biometrics-vault_should_offer_completions_for_flags_or_options "biometrics-vault reset" service' -l 'service' -d 'The namespace of the keys (Secret Service attribute `service`).' -rfka ''
complete -c 'biometrics-vault' -n '__biometrics-vault_should_offer_completions_for_flags_or_options "biometrics-vault reset" store' -l 'store' -d 'Where credentials live: auto picks the Secret Service when one answers on the session bus, else the encrypted file store.' -rfka 'auto secret-service file'
complete -c 'biometrics-vault' -n '__biometrics-vault_should_offer_completions_for_flags_or_options "biometrics-vault reset" authenticator' -l 'authenticator' -d 'Who authenticates the owner: auto uses fprintd when a finger is enrolled; pam / polkit gate protected items by the login password; none stores plainly only.' -rfka 'auto fprintd pam polkit none'
complete -c 'biometrics-vault' -n '__biometrics-vault_should_offer_completions_for_flags_or_options "biometrics-vault reset" json' -l 'json' -d 'Print results (and errors, on stderr) as JSON.'
complete -c 'biometrics-vault' -n '__biometrics-vault_should_offer_completions_for_flags_or_options "biometrics-vault reset" verbose' -l 'verbose' -d 'Also explain on stderr what auto chose and why, with the libraries\' error details.'
complete -c 'biometrics-vault' -n '__biometrics-vault_should_offer_completions_for_flags_or_options "biometrics-vault reset" pin-stdin' -l 'pin-stdin' -d 'Read the file store\'s TPM PIN from the first line of stdin instead of the terminal (`key` verbs: one line per PIN, the current one first).'
complete -c 'biometrics-vault' -n '__biometrics-vault_should_offer_completions_for_flags_or_options "biometrics-vault reset" passphrase-stdin' -l 'passphrase-stdin' -d 'Read the file store\'s passphrase from the first line of stdin instead of the terminal (`key` verbs: one line per passphrase, the current one first).'
complete -c 'biometrics-vault' -n '__biometrics-vault_should_offer_completions_for_flags_or_options "biometrics-vault reset" unlock-window' -l 'unlock-window' -d 'Keep protected items of this service open for this terminal for DURATION after one authentication (90, 90s, 15m, 1h; 0 or off: never). Default: $BIOMETRICS_VAULT_UNLOCK_WINDOW, else off. See `biometrics-vault agent --help`.' -rfka ''
complete -c 'biometrics-vault' -n '__biometrics-vault_should_offer_completions_for_flags_or_options "biometrics-vault reset" version' -l 'version' -d 'Show the version.'
complete -c 'biometrics-vault' -n '__biometrics-vault_should_offer_completions_for_flags_or_options "biometrics-vault reset" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'biometrics-vault' -n '__biometrics-vault_should_offer_completions_for_flags_or_options "biometrics-vault list" service' -l 'service' -d 'The namespace of the keys (Secret Service attribute `service`).' -rfka ''
complete -c 'biometrics-vault' -n '__biometrics-vault_should_offer_completions_for_flags_or_options "biometrics-vault list" store' -l 'store' -d 'Where credentials live: auto picks the Secret Service when one answers on the session bus, else the encrypted file store.' -rfka 'auto secret-service file'
complete -c 'biometrics-vault' -n '__biometrics-vault_should_offer_completions_for_flags_or_options "biometrics-vault list" authenticator' -l 'authenticator' -d 'Who authenticates the owner: auto uses fprintd when a finger is enrolled; pam / polkit gate protected items by the login password; none stores plainly only.' -rfka 'auto fprintd pam polkit none'
complete -c 'biometrics-vault' -n '__biometrics-vault_should_offer_completions_for_flags_or_options "biometrics-vault list" json' -l 'json' -d 'Print results (and errors, on stderr) as JSON.'
complete -c 'biometrics-vault' -n '__biometrics-vault_should_offer_completions_for_flags_or_options "biometrics-vault list" verbose' -l 'verbose' -d 'Also explain on stderr what auto chose and why, with the libraries\' error details.'
complete -c 'biometrics-vault' -n '__biometrics-vault_should_offer_completions_for_flags_or_options "biometrics-vault list" pin-stdin' -l 'pin-stdin' -d 'Read the file store\'s TPM PIN from the first line of stdin instead of the terminal (`key` verbs: one line per PIN, the current one first).'
complete -c 'biometrics-vault' -n '__biometrics-vault_should_offer_completions_for_flags_or_options "biometrics-vault list" passphrase-stdin' -l 'passphrase-stdin' -d 'Read the file store\'s passphrase from the first line of stdin instead of the terminal (`key` verbs: one line per passphrase, the current one first).'
complete -c 'biometrics-vault' -n '__biometrics-vault_should_offer_completions_for_flags_or_options "biometrics-vault list" unlock-window' -l 'unlock-window' -d 'Keep protected items of this service open for this terminal for DURATION after one authentication (90, 90s, 15m, 1h; 0 or off: never). Default: $BIOMETRICS_VAULT_UNLOCK_WINDOW, else off. See `biometrics-vault agent --help`.' -rfka ''
complete -c 'biometrics-vault' -n '__biometrics-vault_should_offer_completions_for_flags_or_options "biometrics-vault list" version' -l 'version' -d 'Show the version.'
complete -c 'biometrics-vault' -n '__biometrics-vault_should_offer_completions_for_flags_or_options "biometrics-vault list" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'biometrics-vault' -n '__biometrics-vault_should_offer_completions_for_flags_or_options "biometrics-vault import" service' -l 'service' -d 'The namespace of the keys (Secret Service attribute `service`).' -rfka ''
complete -c 'biometrics-vault' -n '__biometrics-vault_should_offer_completions_for_flags_or_options "biometrics-vault import" store' -l 'store' -d 'Where credentials live: auto picks the Secret Service when one answers on the session bus, else the encrypted file store.' -rfka 'auto secret-service file'
complete -c 'biometrics-vault' -n '__biometrics-vault_should_offer_completions_for_flags_or_options "biometrics-vault import" authenticator' -l 'authenticator' -d 'Who authenticates the owner: auto uses fprintd when a finger is enrolled; pam / polkit gate protected items by the login password; none stores plainly only.' -rfka 'auto fprintd pam polkit none'
complete -c 'biometrics-vault' -n '__biometrics-vault_should_offer_completions_for_flags_or_options "biometrics-vault import" json' -l 'json' -d 'Print results (and errors, on stderr) as JSON.'
complete -c 'biometrics-vault' -n '__biometrics-vault_should_offer_completions_for_flags_or_options "biometrics-vault import" verbose' -l 'verbose' -d 'Also explain on stderr what auto chose and why, with the libraries\' error details.'
complete -c 'biometrics-vault' -n '__biometrics-vault_should_offer_completions_for_flags_or_options "biometrics-vault import" pin-stdin' -l 'pin-stdin' -d 'Read the file store\'s TPM PIN from the first line of stdin instead of the terminal (`key` verbs: one line per PIN, the current one first).'
complete -c 'biometrics-vault' -n '__biometrics-vault_should_offer_completions_for_flags_or_options "biometrics-vault import" passphrase-stdin' -l 'passphrase-stdin' -d 'Read the file store\'s passphrase from the first line of stdin instead of the terminal (`key` verbs: one line per passphrase, the current one first).'
complete -c 'biometrics-vault' -n '__biometrics-vault_should_offer_completions_for_flags_or_options "biometrics-vault import" unlock-window' -l 'unlock-window' -d 'Keep protected items of this service open for this terminal for DURATION after one authentication (90, 90s, 15m, 1h; 0 or off: never). Default: $BIOMETRICS_VAULT_UNLOCK_WINDOW, else off. See `biometrics-vault agent --help`.' -rfka ''
complete -c 'biometrics-vault' -n '__biometrics-vault_should_offer_completions_for_flags_or_options "biometrics-vault import" from-service' -l 'from-service' -d 'The source item\'s `service` attribute.' -rfka ''
complete -c 'biometrics-vault' -n '__biometrics-vault_should_offer_completions_for_flags_or_options "biometrics-vault import" username' -l 'username' -d 'The source item\'s `username` attribute.' -rfka ''
complete -c 'biometrics-vault' -n '__biometrics-vault_should_offer_completions_for_flags_or_options "biometrics-vault import" key' -l 'key' -d 'The key to store it under (default: the username).' -rfka ''
complete -c 'biometrics-vault' -n '__biometrics-vault_should_offer_completions_for_flags_or_options "biometrics-vault import" as-string' -l 'as-string' -d 'Store the secret\'s text as a JSON string (for a plain password) instead of requiring JSON.'
complete -c 'biometrics-vault' -n '__biometrics-vault_should_offer_completions_for_flags_or_options "biometrics-vault import" remove-source' -l 'remove-source' -d 'Delete the source item once the adopted one is written and reads back.'
complete -c 'biometrics-vault' -n '__biometrics-vault_should_offer_completions_for_flags_or_options "biometrics-vault import" version' -l 'version' -d 'Show the version.'
complete -c 'biometrics-vault' -n '__biometrics-vault_should_offer_completions_for_flags_or_options "biometrics-vault import" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'biometrics-vault' -n '__biometrics-vault_should_offer_completions_for_flags_or_options "biometrics-vault doctor" service' -l 'service' -d 'The namespace of the keys (Secret Service attribute `service`).' -rfka ''
complete -c 'biometrics-vault' -n '__biometrics-vault_should_offer_completions_for_flags_or_options "biometrics-vault doctor" store' -l 'store' -d 'Where credentials live: auto picks the Secret Service when one answers on the session bus, else the encrypted file store.' -rfka 'auto secret-service file'
complete -c 'biometrics-vault' -n '__biometrics-vault_should_offer_completions_for_flags_or_options "biometrics-vault doctor" authenticator' -l 'authenticator' -d 'Who authenticates the owner: auto uses fprintd when a finger is enrolled; pam / polkit gate protected items by the login password; none stores plainly only.' -rfka 'auto fprintd pam polkit none'
complete -c 'biometrics-vault' -n '__biometrics-vault_should_offer_completions_for_flags_or_options "biometrics-vault doctor" json' -l 'json' -d 'Print results (and errors, on stderr) as JSON.'
complete -c 'biometrics-vault' -n '__biometrics-vault_should_offer_completions_for_flags_or_options "biometrics-vault doctor" verbose' -l 'verbose' -d 'Also explain on stderr what auto chose and why, with the libraries\' error details.'
complete -c 'biometrics-vault' -n '__biometrics-vault_should_offer_completions_for_flags_or_options "biometrics-vault doctor" pin-stdin' -l 'pin-stdin' -d 'Read the file store\'s TPM PIN from the first line of stdin instead of the terminal (`key` verbs: one line per PIN, the current one first).'
complete -c 'biometrics-vault' -n '__biometrics-vault_should_offer_completions_for_flags_or_options "biometrics-vault doctor" passphrase-stdin' -l 'passphrase-stdin' -d 'Read the file store\'s passphrase from the first line of stdin instead of the terminal (`key` verbs: one line per passphrase, the current one first).'
complete -c 'biometrics-vault' -n '__biometrics-vault_should_offer_completions_for_flags_or_options "biometrics-vault doctor" unlock-window' -l 'unlock-window' -d 'Keep protected items of this service open for this terminal for DURATION after one authentication (90, 90s, 15m, 1h; 0 or off: never). Default: $BIOMETRICS_VAULT_UNLOCK_WINDOW, else off. See `biometrics-vault agent --help`.' -rfka ''
complete -c 'biometrics-vault' -n '__biometrics-vault_should_offer_completions_for_flags_or_options "biometrics-vault doctor" version' -l 'version' -d 'Show the version.'
complete -c 'biometrics-vault' -n '__biometrics-vault_should_offer_completions_for_flags_or_options "biometrics-vault doctor" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'biometrics-vault' -n '__biometrics-vault_should_offer_completions_for_flags_or_options "biometrics-vault setup" service' -l 'service' -d 'The namespace of the keys (Secret Service attribute `service`).' -rfka ''
complete -c 'biometrics-vault' -n '__biometrics-vault_should_offer_completions_for_flags_or_options "biometrics-vault setup" store' -l 'store' -d 'Where credentials live: auto picks the Secret Service when one answers on the session bus, else the encrypted file store.' -rfka 'auto secret-service file'
complete -c 'biometrics-vault' -n '__biometrics-vault_should_offer_completions_for_flags_or_options "biometrics-vault setup" authenticator' -l 'authenticator' -d 'Who authenticates the owner: auto uses fprintd when a finger is enrolled; pam / polkit gate protected items by the login password; none stores plainly only.' -rfka 'auto fprintd pam polkit none'
complete -c 'biometrics-vault' -n '__biometrics-vault_should_offer_completions_for_flags_or_options "biometrics-vault setup" json' -l 'json' -d 'Print results (and errors, on stderr) as JSON.'
complete -c 'biometrics-vault' -n '__biometrics-vault_should_offer_completions_for_flags_or_options "biometrics-vault setup" verbose' -l 'verbose' -d 'Also explain on stderr what auto chose and why, with the libraries\' error details.'
complete -c 'biometrics-vault' -n '__biometrics-vault_should_offer_completions_for_flags_or_options "biometrics-vault setup" pin-stdin' -l 'pin-stdin' -d 'Read the file store\'s TPM PIN from the first line of stdin instead of the terminal (`key` verbs: one line per PIN, the current one first).'
complete -c 'biometrics-vault' -n '__biometrics-vault_should_offer_completions_for_flags_or_options "biometrics-vault setup" passphrase-stdin' -l 'passphrase-stdin' -d 'Read the file store\'s passphrase from the first line of stdin instead of the terminal (`key` verbs: one line per passphrase, the current one first).'
complete -c 'biometrics-vault' -n '__biometrics-vault_should_offer_completions_for_flags_or_options "biometrics-vault setup" unlock-window' -l 'unlock-window' -d 'Keep protected items of this service open for this terminal for DURATION after one authentication (90, 90s, 15m, 1h; 0 or off: never). Default: $BIOMETRICS_VAULT_UNLOCK_WINDOW, else off. See `biometrics-vault agent --help`.' -rfka ''
complete -c 'biometrics-vault' -n '__biometrics-vault_should_offer_completions_for_flags_or_options "biometrics-vault setup" uninstall' -l 'uninstall' -d 'Remove the installed files instead.'
complete -c 'biometrics-vault' -n '__biometrics-vault_should_offer_completions_for_flags_or_options "biometrics-vault setup" resources' -l 'resources' -d 'Directory holding the packaged files (default: <prefix>/share/biometrics-vault of an installed binary, else Resources/linux above the build).' -rfka ''
complete -c 'biometrics-vault' -n '__biometrics-vault_should_offer_completions_for_flags_or_options "biometrics-vault setup" root' -l 'root' -d 'Install below this directory instead of / (for packaging; no root needed).' -rfka ''
complete -c 'biometrics-vault' -n '__biometrics-vault_should_offer_completions_for_flags_or_options "biometrics-vault setup" version' -l 'version' -d 'Show the version.'
complete -c 'biometrics-vault' -n '__biometrics-vault_should_offer_completions_for_flags_or_options "biometrics-vault setup" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'biometrics-vault' -n '__biometrics-vault_should_offer_completions_for_flags_or_options "biometrics-vault git-credential" service' -l 'service' -d 'The namespace of the keys (Secret Service attribute `service`).' -rfka ''
complete -c 'biometrics-vault' -n '__biometrics-vault_should_offer_completions_for_flags_or_options "biometrics-vault git-credential" store' -l 'store' -d 'Where credentials live: auto picks the Secret Service when one answers on the session bus, else the encrypted file store.' -rfka 'auto secret-service file'
complete -c 'biometrics-vault' -n '__biometrics-vault_should_offer_completions_for_flags_or_options "biometrics-vault git-credential" authenticator' -l 'authenticator' -d 'Who authenticates the owner: auto uses fprintd when a finger is enrolled; pam / polkit gate protected items by the login password; none stores plainly only.' -rfka 'auto fprintd pam polkit none'
complete -c 'biometrics-vault' -n '__biometrics-vault_should_offer_completions_for_flags_or_options "biometrics-vault git-credential" json' -l 'json' -d 'Print results (and errors, on stderr) as JSON.'
complete -c 'biometrics-vault' -n '__biometrics-vault_should_offer_completions_for_flags_or_options "biometrics-vault git-credential" verbose' -l 'verbose' -d 'Also explain on stderr what auto chose and why, with the libraries\' error details.'
complete -c 'biometrics-vault' -n '__biometrics-vault_should_offer_completions_for_flags_or_options "biometrics-vault git-credential" pin-stdin' -l 'pin-stdin' -d 'Read the file store\'s TPM PIN from the first line of stdin instead of the terminal (`key` verbs: one line per PIN, the current one first).'
complete -c 'biometrics-vault' -n '__biometrics-vault_should_offer_completions_for_flags_or_options "biometrics-vault git-credential" passphrase-stdin' -l 'passphrase-stdin' -d 'Read the file store\'s passphrase from the first line of stdin instead of the terminal (`key` verbs: one line per passphrase, the current one first).'
complete -c 'biometrics-vault' -n '__biometrics-vault_should_offer_completions_for_flags_or_options "biometrics-vault git-credential" unlock-window' -l 'unlock-window' -d 'Keep protected items of this service open for this terminal for DURATION after one authentication (90, 90s, 15m, 1h; 0 or off: never). Default: $BIOMETRICS_VAULT_UNLOCK_WINDOW, else off. See `biometrics-vault agent --help`.' -rfka ''
complete -c 'biometrics-vault' -n '__biometrics-vault_should_offer_completions_for_flags_or_options "biometrics-vault git-credential" biometrics' -l 'biometrics' -d 'Store new credentials behind the fingerprint (or, with --authenticator pam/polkit, the login password).'
complete -c 'biometrics-vault' -n '__biometrics-vault_should_offer_completions_for_flags_or_options "biometrics-vault git-credential" version' -l 'version' -d 'Show the version.'
complete -c 'biometrics-vault' -n '__biometrics-vault_should_offer_completions_for_flags_or_options "biometrics-vault git-credential" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'biometrics-vault' -n '__biometrics-vault_should_offer_completions_for_flags_or_options "biometrics-vault docker-credential" service' -l 'service' -d 'The namespace of the keys (Secret Service attribute `service`).' -rfka ''
complete -c 'biometrics-vault' -n '__biometrics-vault_should_offer_completions_for_flags_or_options "biometrics-vault docker-credential" store' -l 'store' -d 'Where credentials live: auto picks the Secret Service when one answers on the session bus, else the encrypted file store.' -rfka 'auto secret-service file'
complete -c 'biometrics-vault' -n '__biometrics-vault_should_offer_completions_for_flags_or_options "biometrics-vault docker-credential" authenticator' -l 'authenticator' -d 'Who authenticates the owner: auto uses fprintd when a finger is enrolled; pam / polkit gate protected items by the login password; none stores plainly only.' -rfka 'auto fprintd pam polkit none'
complete -c 'biometrics-vault' -n '__biometrics-vault_should_offer_completions_for_flags_or_options "biometrics-vault docker-credential" json' -l 'json' -d 'Print results (and errors, on stderr) as JSON.'
complete -c 'biometrics-vault' -n '__biometrics-vault_should_offer_completions_for_flags_or_options "biometrics-vault docker-credential" verbose' -l 'verbose' -d 'Also explain on stderr what auto chose and why, with the libraries\' error details.'
complete -c 'biometrics-vault' -n '__biometrics-vault_should_offer_completions_for_flags_or_options "biometrics-vault docker-credential" pin-stdin' -l 'pin-stdin' -d 'Read the file store\'s TPM PIN from the first line of stdin instead of the terminal (`key` verbs: one line per PIN, the current one first).'
complete -c 'biometrics-vault' -n '__biometrics-vault_should_offer_completions_for_flags_or_options "biometrics-vault docker-credential" passphrase-stdin' -l 'passphrase-stdin' -d 'Read the file store\'s passphrase from the first line of stdin instead of the terminal (`key` verbs: one line per passphrase, the current one first).'
complete -c 'biometrics-vault' -n '__biometrics-vault_should_offer_completions_for_flags_or_options "biometrics-vault docker-credential" unlock-window' -l 'unlock-window' -d 'Keep protected items of this service open for this terminal for DURATION after one authentication (90, 90s, 15m, 1h; 0 or off: never). Default: $BIOMETRICS_VAULT_UNLOCK_WINDOW, else off. See `biometrics-vault agent --help`.' -rfka ''
complete -c 'biometrics-vault' -n '__biometrics-vault_should_offer_completions_for_flags_or_options "biometrics-vault docker-credential" version' -l 'version' -d 'Show the version.'
complete -c 'biometrics-vault' -n '__biometrics-vault_should_offer_completions_for_flags_or_options "biometrics-vault docker-credential" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'biometrics-vault' -n '__biometrics-vault_should_offer_completions_for_flags_or_options "biometrics-vault exec" service' -l 'service' -d 'The namespace of the keys (Secret Service attribute `service`).' -rfka ''
complete -c 'biometrics-vault' -n '__biometrics-vault_should_offer_completions_for_flags_or_options "biometrics-vault exec" store' -l 'store' -d 'Where credentials live: auto picks the Secret Service when one answers on the session bus, else the encrypted file store.' -rfka 'auto secret-service file'
complete -c 'biometrics-vault' -n '__biometrics-vault_should_offer_completions_for_flags_or_options "biometrics-vault exec" authenticator' -l 'authenticator' -d 'Who authenticates the owner: auto uses fprintd when a finger is enrolled; pam / polkit gate protected items by the login password; none stores plainly only.' -rfka 'auto fprintd pam polkit none'
complete -c 'biometrics-vault' -n '__biometrics-vault_should_offer_completions_for_flags_or_options "biometrics-vault exec" json' -l 'json' -d 'Print results (and errors, on stderr) as JSON.'
complete -c 'biometrics-vault' -n '__biometrics-vault_should_offer_completions_for_flags_or_options "biometrics-vault exec" verbose' -l 'verbose' -d 'Also explain on stderr what auto chose and why, with the libraries\' error details.'
complete -c 'biometrics-vault' -n '__biometrics-vault_should_offer_completions_for_flags_or_options "biometrics-vault exec" pin-stdin' -l 'pin-stdin' -d 'Read the file store\'s TPM PIN from the first line of stdin instead of the terminal (`key` verbs: one line per PIN, the current one first).'
complete -c 'biometrics-vault' -n '__biometrics-vault_should_offer_completions_for_flags_or_options "biometrics-vault exec" passphrase-stdin' -l 'passphrase-stdin' -d 'Read the file store\'s passphrase from the first line of stdin instead of the terminal (`key` verbs: one line per passphrase, the current one first).'
complete -c 'biometrics-vault' -n '__biometrics-vault_should_offer_completions_for_flags_or_options "biometrics-vault exec" unlock-window' -l 'unlock-window' -d 'Keep protected items of this service open for this terminal for DURATION after one authentication (90, 90s, 15m, 1h; 0 or off: never). Default: $BIOMETRICS_VAULT_UNLOCK_WINDOW, else off. See `biometrics-vault agent --help`.' -rfka ''
complete -c 'biometrics-vault' -n '__biometrics-vault_should_offer_completions_for_flags_or_options "biometrics-vault exec"' -l 'env' -d 'Set the environment variable NAME to the credentials\' top-level FIELD (repeatable).' -rfka ''
complete -c 'biometrics-vault' -n '__biometrics-vault_should_offer_completions_for_flags_or_options "biometrics-vault exec" version' -l 'version' -d 'Show the version.'
complete -c 'biometrics-vault' -n '__biometrics-vault_should_offer_completions_for_flags_or_options "biometrics-vault exec" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'biometrics-vault' -n '__biometrics-vault_should_offer_completions_for_flags_or_options "biometrics-vault clear-lockout" service' -l 'service' -d 'The namespace of the keys (Secret Service attribute `service`).' -rfka ''
complete -c 'biometrics-vault' -n '__biometrics-vault_should_offer_completions_for_flags_or_options "biometrics-vault clear-lockout" store' -l 'store' -d 'Where credentials live: auto picks the Secret Service when one answers on the session bus, else the encrypted file store.' -rfka 'auto secret-service file'
complete -c 'biometrics-vault' -n '__biometrics-vault_should_offer_completions_for_flags_or_options "biometrics-vault clear-lockout" authenticator' -l 'authenticator' -d 'Who authenticates the owner: auto uses fprintd when a finger is enrolled; pam / polkit gate protected items by the login password; none stores plainly only.' -rfka 'auto fprintd pam polkit none'
complete -c 'biometrics-vault' -n '__biometrics-vault_should_offer_completions_for_flags_or_options "biometrics-vault clear-lockout" json' -l 'json' -d 'Print results (and errors, on stderr) as JSON.'
complete -c 'biometrics-vault' -n '__biometrics-vault_should_offer_completions_for_flags_or_options "biometrics-vault clear-lockout" verbose' -l 'verbose' -d 'Also explain on stderr what auto chose and why, with the libraries\' error details.'
complete -c 'biometrics-vault' -n '__biometrics-vault_should_offer_completions_for_flags_or_options "biometrics-vault clear-lockout" pin-stdin' -l 'pin-stdin' -d 'Read the file store\'s TPM PIN from the first line of stdin instead of the terminal (`key` verbs: one line per PIN, the current one first).'
complete -c 'biometrics-vault' -n '__biometrics-vault_should_offer_completions_for_flags_or_options "biometrics-vault clear-lockout" passphrase-stdin' -l 'passphrase-stdin' -d 'Read the file store\'s passphrase from the first line of stdin instead of the terminal (`key` verbs: one line per passphrase, the current one first).'
complete -c 'biometrics-vault' -n '__biometrics-vault_should_offer_completions_for_flags_or_options "biometrics-vault clear-lockout" unlock-window' -l 'unlock-window' -d 'Keep protected items of this service open for this terminal for DURATION after one authentication (90, 90s, 15m, 1h; 0 or off: never). Default: $BIOMETRICS_VAULT_UNLOCK_WINDOW, else off. See `biometrics-vault agent --help`.' -rfka ''
complete -c 'biometrics-vault' -n '__biometrics-vault_should_offer_completions_for_flags_or_options "biometrics-vault clear-lockout" version' -l 'version' -d 'Show the version.'
complete -c 'biometrics-vault' -n '__biometrics-vault_should_offer_completions_for_flags_or_options "biometrics-vault clear-lockout" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'biometrics-vault' -n '__biometrics-vault_should_offer_completions_for_flags_or_options "biometrics-vault key" version' -l 'version' -d 'Show the version.'
complete -c 'biometrics-vault' -n '__biometrics-vault_should_offer_completions_for_flags_or_options "biometrics-vault key" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'biometrics-vault' -n '__biometrics-vault_should_offer_completions_for_positional "biometrics-vault key" -eq 1' -fa 'status' -d 'Show what protects the file store\'s key, whether the TPM is reachable, and its lockout state. Never prompts.'
complete -c 'biometrics-vault' -n '__biometrics-vault_should_offer_completions_for_positional "biometrics-vault key" -eq 1' -fa 'seal' -d 'Seal the file store\'s key with this machine\'s TPM, optionally behind a PIN the TPM checks (and limits guesses of).'
complete -c 'biometrics-vault' -n '__biometrics-vault_should_offer_completions_for_positional "biometrics-vault key" -eq 1' -fa 'unseal' -d 'Protect the file store\'s key with a plain key file again (master.key, 0600), no longer bound to the TPM.'
complete -c 'biometrics-vault' -n '__biometrics-vault_should_offer_completions_for_positional "biometrics-vault key" -eq 1' -fa 'passphrase' -d 'Protect the file store\'s key with a passphrase (scrypt), asked by every later command; also changes it.'
complete -c 'biometrics-vault' -n '__biometrics-vault_should_offer_completions_for_flags_or_options "biometrics-vault key status" service' -l 'service' -d 'The namespace of the keys (Secret Service attribute `service`).' -rfka ''
complete -c 'biometrics-vault' -n '__biometrics-vault_should_offer_completions_for_flags_or_options "biometrics-vault key status" store' -l 'store' -d 'Where credentials live: auto picks the Secret Service when one answers on the session bus, else the encrypted file store.' -rfka 'auto secret-service file'
complete -c 'biometrics-vault' -n '__biometrics-vault_should_offer_completions_for_flags_or_options "biometrics-vault key status" authenticator' -l 'authenticator' -d 'Who authenticates the owner: auto uses fprintd when a finger is enrolled; pam / polkit gate protected items by the login password; none stores plainly only.' -rfka 'auto fprintd pam polkit none'
complete -c 'biometrics-vault' -n '__biometrics-vault_should_offer_completions_for_flags_or_options "biometrics-vault key status" json' -l 'json' -d 'Print results (and errors, on stderr) as JSON.'
complete -c 'biometrics-vault' -n '__biometrics-vault_should_offer_completions_for_flags_or_options "biometrics-vault key status" verbose' -l 'verbose' -d 'Also explain on stderr what auto chose and why, with the libraries\' error details.'
complete -c 'biometrics-vault' -n '__biometrics-vault_should_offer_completions_for_flags_or_options "biometrics-vault key status" pin-stdin' -l 'pin-stdin' -d 'Read the file store\'s TPM PIN from the first line of stdin instead of the terminal (`key` verbs: one line per PIN, the current one first).'
complete -c 'biometrics-vault' -n '__biometrics-vault_should_offer_completions_for_flags_or_options "biometrics-vault key status" passphrase-stdin' -l 'passphrase-stdin' -d 'Read the file store\'s passphrase from the first line of stdin instead of the terminal (`key` verbs: one line per passphrase, the current one first).'
complete -c 'biometrics-vault' -n '__biometrics-vault_should_offer_completions_for_flags_or_options "biometrics-vault key status" unlock-window' -l 'unlock-window' -d 'Keep protected items of this service open for this terminal for DURATION after one authentication (90, 90s, 15m, 1h; 0 or off: never). Default: $BIOMETRICS_VAULT_UNLOCK_WINDOW, else off. See `biometrics-vault agent --help`.' -rfka ''
complete -c 'biometrics-vault' -n '__biometrics-vault_should_offer_completions_for_flags_or_options "biometrics-vault key status" version' -l 'version' -d 'Show the version.'
complete -c 'biometrics-vault' -n '__biometrics-vault_should_offer_completions_for_flags_or_options "biometrics-vault key status" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'biometrics-vault' -n '__biometrics-vault_should_offer_completions_for_flags_or_options "biometrics-vault key seal" service' -l 'service' -d 'The namespace of the keys (Secret Service attribute `service`).' -rfka ''
complete -c 'biometrics-vault' -n '__biometrics-vault_should_offer_completions_for_flags_or_options "biometrics-vault key seal" store' -l 'store' -d 'Where credentials live: auto picks the Secret Service when one answers on the session bus, else the encrypted file store.' -rfka 'auto secret-service file'
complete -c 'biometrics-vault' -n '__biometrics-vault_should_offer_completions_for_flags_or_options "biometrics-vault key seal" authenticator' -l 'authenticator' -d 'Who authenticates the owner: auto uses fprintd when a finger is enrolled; pam / polkit gate protected items by the login password; none stores plainly only.' -rfka 'auto fprintd pam polkit none'
complete -c 'biometrics-vault' -n '__biometrics-vault_should_offer_completions_for_flags_or_options "biometrics-vault key seal" json' -l 'json' -d 'Print results (and errors, on stderr) as JSON.'
complete -c 'biometrics-vault' -n '__biometrics-vault_should_offer_completions_for_flags_or_options "biometrics-vault key seal" verbose' -l 'verbose' -d 'Also explain on stderr what auto chose and why, with the libraries\' error details.'
complete -c 'biometrics-vault' -n '__biometrics-vault_should_offer_completions_for_flags_or_options "biometrics-vault key seal" pin-stdin' -l 'pin-stdin' -d 'Read the file store\'s TPM PIN from the first line of stdin instead of the terminal (`key` verbs: one line per PIN, the current one first).'
complete -c 'biometrics-vault' -n '__biometrics-vault_should_offer_completions_for_flags_or_options "biometrics-vault key seal" passphrase-stdin' -l 'passphrase-stdin' -d 'Read the file store\'s passphrase from the first line of stdin instead of the terminal (`key` verbs: one line per passphrase, the current one first).'
complete -c 'biometrics-vault' -n '__biometrics-vault_should_offer_completions_for_flags_or_options "biometrics-vault key seal" unlock-window' -l 'unlock-window' -d 'Keep protected items of this service open for this terminal for DURATION after one authentication (90, 90s, 15m, 1h; 0 or off: never). Default: $BIOMETRICS_VAULT_UNLOCK_WINDOW, else off. See `biometrics-vault agent --help`.' -rfka ''
complete -c 'biometrics-vault' -n '__biometrics-vault_should_offer_completions_for_flags_or_options "biometrics-vault key seal" tpm' -l 'tpm' -d 'Seal with the TPM (the only sealer today).'
complete -c 'biometrics-vault' -n '__biometrics-vault_should_offer_completions_for_flags_or_options "biometrics-vault key seal" pin' -l 'pin' -d 'Protect the sealed key with a PIN, asked on the terminal (with --pin-stdin: read from stdin, after the current PIN if the store has one).'
complete -c 'biometrics-vault' -n '__biometrics-vault_should_offer_completions_for_flags_or_options "biometrics-vault key seal" version' -l 'version' -d 'Show the version.'
complete -c 'biometrics-vault' -n '__biometrics-vault_should_offer_completions_for_flags_or_options "biometrics-vault key seal" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'biometrics-vault' -n '__biometrics-vault_should_offer_completions_for_flags_or_options "biometrics-vault key unseal" service' -l 'service' -d 'The namespace of the keys (Secret Service attribute `service`).' -rfka ''
complete -c 'biometrics-vault' -n '__biometrics-vault_should_offer_completions_for_flags_or_options "biometrics-vault key unseal" store' -l 'store' -d 'Where credentials live: auto picks the Secret Service when one answers on the session bus, else the encrypted file store.' -rfka 'auto secret-service file'
complete -c 'biometrics-vault' -n '__biometrics-vault_should_offer_completions_for_flags_or_options "biometrics-vault key unseal" authenticator' -l 'authenticator' -d 'Who authenticates the owner: auto uses fprintd when a finger is enrolled; pam / polkit gate protected items by the login password; none stores plainly only.' -rfka 'auto fprintd pam polkit none'
complete -c 'biometrics-vault' -n '__biometrics-vault_should_offer_completions_for_flags_or_options "biometrics-vault key unseal" json' -l 'json' -d 'Print results (and errors, on stderr) as JSON.'
complete -c 'biometrics-vault' -n '__biometrics-vault_should_offer_completions_for_flags_or_options "biometrics-vault key unseal" verbose' -l 'verbose' -d 'Also explain on stderr what auto chose and why, with the libraries\' error details.'
complete -c 'biometrics-vault' -n '__biometrics-vault_should_offer_completions_for_flags_or_options "biometrics-vault key unseal" pin-stdin' -l 'pin-stdin' -d 'Read the file store\'s TPM PIN from the first line of stdin instead of the terminal (`key` verbs: one line per PIN, the current one first).'
complete -c 'biometrics-vault' -n '__biometrics-vault_should_offer_completions_for_flags_or_options "biometrics-vault key unseal" passphrase-stdin' -l 'passphrase-stdin' -d 'Read the file store\'s passphrase from the first line of stdin instead of the terminal (`key` verbs: one line per passphrase, the current one first).'
complete -c 'biometrics-vault' -n '__biometrics-vault_should_offer_completions_for_flags_or_options "biometrics-vault key unseal" unlock-window' -l 'unlock-window' -d 'Keep protected items of this service open for this terminal for DURATION after one authentication (90, 90s, 15m, 1h; 0 or off: never). Default: $BIOMETRICS_VAULT_UNLOCK_WINDOW, else off. See `biometrics-vault agent --help`.' -rfka ''
complete -c 'biometrics-vault' -n '__biometrics-vault_should_offer_completions_for_flags_or_options "biometrics-vault key unseal" version' -l 'version' -d 'Show the version.'
complete -c 'biometrics-vault' -n '__biometrics-vault_should_offer_completions_for_flags_or_options "biometrics-vault key unseal" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'biometrics-vault' -n '__biometrics-vault_should_offer_completions_for_flags_or_options "biometrics-vault key passphrase" service' -l 'service' -d 'The namespace of the keys (Secret Service attribute `service`).' -rfka ''
complete -c 'biometrics-vault' -n '__biometrics-vault_should_offer_completions_for_flags_or_options "biometrics-vault key passphrase" store' -l 'store' -d 'Where credentials live: auto picks the Secret Service when one answers on the session bus, else the encrypted file store.' -rfka 'auto secret-service file'
complete -c 'biometrics-vault' -n '__biometrics-vault_should_offer_completions_for_flags_or_options "biometrics-vault key passphrase" authenticator' -l 'authenticator' -d 'Who authenticates the owner: auto uses fprintd when a finger is enrolled; pam / polkit gate protected items by the login password; none stores plainly only.' -rfka 'auto fprintd pam polkit none'
complete -c 'biometrics-vault' -n '__biometrics-vault_should_offer_completions_for_flags_or_options "biometrics-vault key passphrase" json' -l 'json' -d 'Print results (and errors, on stderr) as JSON.'
complete -c 'biometrics-vault' -n '__biometrics-vault_should_offer_completions_for_flags_or_options "biometrics-vault key passphrase" verbose' -l 'verbose' -d 'Also explain on stderr what auto chose and why, with the libraries\' error details.'
complete -c 'biometrics-vault' -n '__biometrics-vault_should_offer_completions_for_flags_or_options "biometrics-vault key passphrase" pin-stdin' -l 'pin-stdin' -d 'Read the file store\'s TPM PIN from the first line of stdin instead of the terminal (`key` verbs: one line per PIN, the current one first).'
complete -c 'biometrics-vault' -n '__biometrics-vault_should_offer_completions_for_flags_or_options "biometrics-vault key passphrase" passphrase-stdin' -l 'passphrase-stdin' -d 'Read the file store\'s passphrase from the first line of stdin instead of the terminal (`key` verbs: one line per passphrase, the current one first).'
complete -c 'biometrics-vault' -n '__biometrics-vault_should_offer_completions_for_flags_or_options "biometrics-vault key passphrase" unlock-window' -l 'unlock-window' -d 'Keep protected items of this service open for this terminal for DURATION after one authentication (90, 90s, 15m, 1h; 0 or off: never). Default: $BIOMETRICS_VAULT_UNLOCK_WINDOW, else off. See `biometrics-vault agent --help`.' -rfka ''
complete -c 'biometrics-vault' -n '__biometrics-vault_should_offer_completions_for_flags_or_options "biometrics-vault key passphrase" version' -l 'version' -d 'Show the version.'
complete -c 'biometrics-vault' -n '__biometrics-vault_should_offer_completions_for_flags_or_options "biometrics-vault key passphrase" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'biometrics-vault' -n '__biometrics-vault_should_offer_completions_for_flags_or_options "biometrics-vault agent" idle-exit' -l 'idle-exit' -d 'Exit after this many seconds without a window or a client.' -rfka ''
complete -c 'biometrics-vault' -n '__biometrics-vault_should_offer_completions_for_flags_or_options "biometrics-vault agent" status' -l 'status' -d 'Instead of running the agent, print the windows open for this terminal and when they end.'
complete -c 'biometrics-vault' -n '__biometrics-vault_should_offer_completions_for_flags_or_options "biometrics-vault agent" service' -l 'service' -d 'The namespace of the keys (Secret Service attribute `service`).' -rfka ''
complete -c 'biometrics-vault' -n '__biometrics-vault_should_offer_completions_for_flags_or_options "biometrics-vault agent" store' -l 'store' -d 'Where credentials live: auto picks the Secret Service when one answers on the session bus, else the encrypted file store.' -rfka 'auto secret-service file'
complete -c 'biometrics-vault' -n '__biometrics-vault_should_offer_completions_for_flags_or_options "biometrics-vault agent" authenticator' -l 'authenticator' -d 'Who authenticates the owner: auto uses fprintd when a finger is enrolled; pam / polkit gate protected items by the login password; none stores plainly only.' -rfka 'auto fprintd pam polkit none'
complete -c 'biometrics-vault' -n '__biometrics-vault_should_offer_completions_for_flags_or_options "biometrics-vault agent" json' -l 'json' -d 'Print results (and errors, on stderr) as JSON.'
complete -c 'biometrics-vault' -n '__biometrics-vault_should_offer_completions_for_flags_or_options "biometrics-vault agent" verbose' -l 'verbose' -d 'Also explain on stderr what auto chose and why, with the libraries\' error details.'
complete -c 'biometrics-vault' -n '__biometrics-vault_should_offer_completions_for_flags_or_options "biometrics-vault agent" pin-stdin' -l 'pin-stdin' -d 'Read the file store\'s TPM PIN from the first line of stdin instead of the terminal (`key` verbs: one line per PIN, the current one first).'
complete -c 'biometrics-vault' -n '__biometrics-vault_should_offer_completions_for_flags_or_options "biometrics-vault agent" passphrase-stdin' -l 'passphrase-stdin' -d 'Read the file store\'s passphrase from the first line of stdin instead of the terminal (`key` verbs: one line per passphrase, the current one first).'
complete -c 'biometrics-vault' -n '__biometrics-vault_should_offer_completions_for_flags_or_options "biometrics-vault agent" unlock-window' -l 'unlock-window' -d 'Keep protected items of this service open for this terminal for DURATION after one authentication (90, 90s, 15m, 1h; 0 or off: never). Default: $BIOMETRICS_VAULT_UNLOCK_WINDOW, else off. See `biometrics-vault agent --help`.' -rfka ''
complete -c 'biometrics-vault' -n '__biometrics-vault_should_offer_completions_for_flags_or_options "biometrics-vault agent" version' -l 'version' -d 'Show the version.'
complete -c 'biometrics-vault' -n '__biometrics-vault_should_offer_completions_for_flags_or_options "biometrics-vault agent" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'biometrics-vault' -n '__biometrics-vault_should_offer_completions_for_flags_or_options "biometrics-vault lock" service' -l 'service' -d 'The namespace of the keys (Secret Service attribute `service`).' -rfka ''
complete -c 'biometrics-vault' -n '__biometrics-vault_should_offer_completions_for_flags_or_options "biometrics-vault lock" store' -l 'store' -d 'Where credentials live: auto picks the Secret Service when one answers on the session bus, else the encrypted file store.' -rfka 'auto secret-service file'
complete -c 'biometrics-vault' -n '__biometrics-vault_should_offer_completions_for_flags_or_options "biometrics-vault lock" authenticator' -l 'authenticator' -d 'Who authenticates the owner: auto uses fprintd when a finger is enrolled; pam / polkit gate protected items by the login password; none stores plainly only.' -rfka 'auto fprintd pam polkit none'
complete -c 'biometrics-vault' -n '__biometrics-vault_should_offer_completions_for_flags_or_options "biometrics-vault lock" json' -l 'json' -d 'Print results (and errors, on stderr) as JSON.'
complete -c 'biometrics-vault' -n '__biometrics-vault_should_offer_completions_for_flags_or_options "biometrics-vault lock" verbose' -l 'verbose' -d 'Also explain on stderr what auto chose and why, with the libraries\' error details.'
complete -c 'biometrics-vault' -n '__biometrics-vault_should_offer_completions_for_flags_or_options "biometrics-vault lock" pin-stdin' -l 'pin-stdin' -d 'Read the file store\'s TPM PIN from the first line of stdin instead of the terminal (`key` verbs: one line per PIN, the current one first).'
complete -c 'biometrics-vault' -n '__biometrics-vault_should_offer_completions_for_flags_or_options "biometrics-vault lock" passphrase-stdin' -l 'passphrase-stdin' -d 'Read the file store\'s passphrase from the first line of stdin instead of the terminal (`key` verbs: one line per passphrase, the current one first).'
complete -c 'biometrics-vault' -n '__biometrics-vault_should_offer_completions_for_flags_or_options "biometrics-vault lock" unlock-window' -l 'unlock-window' -d 'Keep protected items of this service open for this terminal for DURATION after one authentication (90, 90s, 15m, 1h; 0 or off: never). Default: $BIOMETRICS_VAULT_UNLOCK_WINDOW, else off. See `biometrics-vault agent --help`.' -rfka ''
complete -c 'biometrics-vault' -n '__biometrics-vault_should_offer_completions_for_flags_or_options "biometrics-vault lock" version' -l 'version' -d 'Show the version.'
complete -c 'biometrics-vault' -n '__biometrics-vault_should_offer_completions_for_flags_or_options "biometrics-vault lock" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'biometrics-vault' -n '__biometrics-vault_should_offer_completions_for_flags_or_options "biometrics-vault help" version' -l 'version' -d 'Show the version.'
