//! The one redaction entry point: every byte that leaves for a model, lands in
//! the database or is written to the memory folder passes through [`redact`].
//!
//! One pass: a case-insensitive keyword automaton (provider prefixes such as
//! `ghp_` or `AKIA`, names such as `token` or `password`, markers such as
//! `://`, `-----BEGIN ` or `eyJ`) finds candidate places; a small detector
//! for that keyword then looks at the bytes around it. Text without any
//! keyword costs one automaton scan and comes back borrowed.
//!
//! The detectors, one job per module: `rules` (provider token formats),
//! `generic` (secret-named assignments and flags), `pairs` (a secret's name
//! in a `name` field, its value in a `value` field), `csv` (a CSV export's
//! secret column), `http` (headers,
//! cookies, URLs, webhooks), `dsn` (connection strings that are not URLs),
//! `keys` (private-key blocks, JWTs), `commands` (short password flags and
//! arguments of known commands), `printed` (what a command prints), `shapes`
//! and `context` (tokens known by an inner marker or by a neighbour). They
//! share `lex` (byte scanning), `entropy` (the shape gate), `placeholders`
//! (the precision allow-list) and `codec` (decoders). [`stream`] redacts a
//! byte stream line by line.

mod codec;
mod commands;
mod context;
mod csv;
mod cut;
mod dsn;
mod entropy;
mod fallback;
mod generic;
mod http;
mod keys;
mod labels;
mod lex;
mod pairs;
mod placeholders;
mod printed;
mod rules;
mod scanner;
mod shapes;
pub mod stream;

use crate::util::text::{ceil_char_boundary, floor_char_boundary};
use commands::Cmd;
use std::borrow::Cow;
use std::sync::LazyLock;

pub use cut::{cut_middle, cuts_after, line_cuts};

/// What a secret is replaced with.
pub const REDACTED: &str = "[REDACTED_SECRET]";

/// One secret found in a text (byte offsets into the input).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finding {
    /// Name of the rule that matched.
    pub rule: &'static str,
    /// Start of the replaced span in the input.
    pub start: usize,
    /// End of the replaced span in the input.
    pub end: usize,
}

/// What to do where a keyword was found.
#[derive(Debug, Clone, Copy)]
enum Action {
    /// A provider token rule (index into [`rules::TOKEN_RULES`]).
    Token(usize),
    /// A secret-looking name: assignment or flag.
    Assign,
    /// [`Action::Assign`] for a keyword that ends with the name's separator.
    AssignBefore,
    /// A URL query's `code=` value, when long and random.
    QueryCode,
    Authorization,
    Bearer,
    Basic,
    Cookie,
    Url,
    Signature,
    SlackHook,
    DiscordHook,
    TeamsHook,
    Telegram,
    /// A Firebase Cloud Messaging legacy server key (`AAAA…:APA91b…`).
    FcmServerKey,
    /// A k3s join token (`K10<hex>::server:<hex>`).
    K3sToken,
    /// A 1Password account Secret Key (`A3-XXXXXX-…`).
    OnePasswordSecretKey,
    /// A Rancher API token (`token-xxxxx:<54 characters>`).
    RancherToken,
    /// A password hash in crypt(3) form (`$6$salt$hash`).
    CryptHash,
    /// NTLM hashes as `secretsdump` prints them (`…:<lm>:<nt>:::`).
    NtlmHashes,
    AzureSecret,
    Terraform,
    Discord,
    /// A prefix-less provider key of this length after the provider's name.
    ProviderNear(usize),
    /// Vault's unseal keys, listed after `unseal_keys_b64` or "unseal with".
    UnsealKeys,
    /// An Asana personal access token near the word "asana".
    AsanaPat,
    /// A here-string (`<<< 'X'`) on the line of a secret's name.
    HereString,
    /// Elasticsearch's `encoded` API key after its `api_key`.
    ElasticEncoded,
    /// Magento's `'crypt' => ['key' => '…']` in `app/etc/env.php`.
    MagentoCrypt,
    Salesforce,
    Mailchimp,
    /// A New Relic license key: 36 hex digits, then `NRAL`.
    NewRelicLicense,
    /// A TOTP seed given to `pyotp.TOTP('…')` and the like.
    TotpSeed,
    AzureDevops,
    OracleThin,
    /// `user/password@//host/service` (Oracle Easy Connect).
    EzConnect,
    GoMysql,
    Pgpass,
    PgpassLine,
    /// SQL's `IDENTIFIED BY '…'` and `IDENTIFIED WITH <plugin> BY '…'`.
    SqlIdentified,
    /// strongSwan's `: PSK "…"` (and `: EAP`, `: XAUTH`).
    IpsecSecret,
    /// MySQL's `SET PASSWORD [FOR user] = '…'`.
    SqlSetPassword,
    /// A Terraform variable named as a secret: its `default`.
    TerraformVariable,
    /// A wallet's recovery phrase after a word that names it.
    Phrase,
    /// A Bitcoin key in wallet import format after a word that names it.
    Wif,
    /// A Solana keypair's byte array (or its base58 export) near a word that names it.
    ByteArrayKey,
    /// A Nostr private key (`nsec1…`).
    Nostr,
    /// An Azure storage account key near `keyName` (CLI output).
    AzureKey,
    /// An EVM private key handed to a wallet or account constructor.
    EvmKey,
    /// `AUTH [user] password` at a `redis-cli` prompt.
    RedisAuth,
    /// Redis Sentinel's `sentinel auth-pass <master> <password>`.
    SentinelAuthPass,
    /// A Redis ACL rule's `>password`.
    RedisAcl,
    /// `echo X | … --password-stdin`, `echo X | sudo -S`.
    PipedPassword,
    /// A JSON Web Key's private members.
    Jwk,
    /// "the password is X".
    ProsePassword,
    /// "password X", "the new value is X" in prose: only a generated-looking X.
    ProseRandom,
    /// "Generated token X": the word after, hex digits too.
    GeneratedToken,
    /// "app password: abcd efgh ijkl mnop".
    AppPassword,
    /// "login is user / X".
    LoginPair,
    /// A key named in a sentence, then its value after a colon.
    NamedThenColon,
    /// A Markdown table with a `Password` column: its cells.
    PasswordColumn,
    /// A webhook's secret path segment (Mattermost when true, else IFTTT).
    HookSegment(bool),
    /// A Zapier catch hook's `<account>/<key>`.
    ZapierHook,
    /// Plaid's `access-<env>-<uuid>`.
    Plaid,
    /// Confluent Cloud's API key as a Kafka SASL user name.
    SaslUserKey,
    /// A property list's `<key>NAME</key><string>X</string>`.
    PlistKey,
    /// A Terraform output marked sensitive: its `value`.
    SensitiveOutput,
    /// `<Value>` inside an element named as a secret (`autounattend.xml`).
    XmlValue,
    /// The lines of a printed `~/.p4tickets`.
    P4Tickets,
    /// "Password" or "API key" in another language, then the value.
    ForeignWord(context::Named),
    /// "Key" or "token" in another language next to "API", then the key.
    ForeignApiKey,
    /// A UUID API key after its provider's name (Heroku).
    UuidKey,
    /// A generated-looking line, then "that's the … token".
    NamedAfter,
    /// .NET's `new NetworkCredential("user", "X")`.
    NetworkCredential,
    /// `echo 'X' > file`, the file named as a secret.
    EchoIntoFile,
    /// Bundler's `user:X` for a gem server.
    BundlerCredential,
    /// "use X as the keystore password".
    UsedAs,
    /// A TOTP seed in groups of four after "setup key".
    GroupedTotpSeed,
    /// A call whose n-th argument (from 1) is a secret: Python's
    /// `hmac.new(b'X', …)` (first), `jwt.sign(payload, 'X')` (second),
    /// `getConnection(url, user, "X")` (third).
    Argument(usize),
    /// OmniAuth's `provider :github, "client id", "X"`: the third argument,
    /// on the keyword's line.
    OmniauthProvider,
    /// `INSERT INTO t (…, api_key, …) VALUES (…, 'X', …)`: the values of secret-named columns.
    SqlInsert,
    /// A PuTTY key file's `Private-Lines`.
    PuttyPrivate,
    /// A Netscape `cookies.txt` (curl, wget, browser exports).
    CookieJar,
    /// A command that prints a secret (index into [`printed::TRIGGERS`]).
    Printed(usize),
    TwilioSid,
    Pem,
    PemBase64,
    Jwt,
    Command(Cmd),
}

/// Keywords other than provider prefixes (matched ignoring ASCII case).
const KEYWORDS: &[(&str, Action)] = &[
    ("key", Action::Assign),
    ("token", Action::Assign),
    ("secret", Action::Assign),
    ("pass", Action::Assign),
    ("pwd", Action::Assign),
    ("_pw", Action::Assign),
    ("auth", Action::Assign),
    ("credential", Action::Assign),
    ("creds", Action::Assign),
    ("appid", Action::Assign),
    ("_pat", Action::Assign),
    // A camelCase name ending in `Pat` (`azureDevopsExtPat`), then its value.
    ("pat\"", Action::AssignBefore),
    ("pat=", Action::AssignBefore),
    ("pat:", Action::AssignBefore),
    // A URL's `code=`: an Azure Functions key, an OAuth authorization code.
    ("code=", Action::QueryCode),
    // Consul's gossip `encrypt` key.
    ("encrypt", Action::Assign),
    ("psk", Action::Assign),
    ("skey", Action::Assign),
    ("p12", Action::Assign),
    ("pfx", Action::Assign),
    ("pkcs12", Action::Assign),
    ("keystore", Action::Assign),
    // "Password" in other languages, as a name (`DB_PASSWORT=`, `senha:`).
    ("kennwort", Action::Assign),
    ("senha", Action::Assign),
    ("wachtwoord", Action::Assign),
    ("haslo", Action::Assign),
    ("sifre", Action::Assign),
    ("parola", Action::Assign),
    ("losenord", Action::Assign),
    ("contrasena", Action::Assign),
    ("salasana", Action::Assign),
    ("adgangskode", Action::Assign),
    ("heslo", Action::Assign),
    ("jelszo", Action::Assign),
    ("khau", Action::Assign),
    ("sandi", Action::Assign),
    ("authorization", Action::Authorization),
    ("bearer", Action::Bearer),
    ("basic", Action::Basic),
    ("cookie", Action::Cookie),
    ("://", Action::Url),
    ("sig=", Action::Signature),
    ("signature=", Action::Signature),
    ("hooks.slack.com/", Action::SlackHook),
    ("/hooks/", Action::HookSegment(true)),
    ("/with/key/", Action::HookSegment(false)),
    ("ifttt.com/use/", Action::HookSegment(false)),
    (".make.com/", Action::HookSegment(false)),
    ("/bot/v2/hook/", Action::HookSegment(false)),
    ("webhook/send?key=", Action::HookSegment(false)),
    ("infura.io/v3/", Action::HookSegment(false)),
    (".alchemy.com/v2/", Action::HookSegment(false)),
    (".quiknode.pro/", Action::HookSegment(false)),
    // A private conda channel's token: `conda.anaconda.org/t/<token>/…`.
    ("anaconda.org/t/", Action::HookSegment(false)),
    ("/hooks/catch/", Action::ZapierHook),
    // Backtrace's crash submission URL: `submit.backtrace.io/<universe>/<token>/…`.
    ("submit.backtrace.io/", Action::ZapierHook),
    ("access-production-", Action::Plaid),
    ("access-sandbox-", Action::Plaid),
    ("access-development-", Action::Plaid),
    ("plainloginmodule", Action::SaslUserKey),
    ("<key>", Action::PlistKey),
    ("<value>", Action::XmlValue),
    (".p4tickets", Action::P4Tickets),
    ("\"sensitive\": true", Action::SensitiveOutput),
    // Keycloak's `kcadm.sh get …/client-secret`: `{"type": "secret", "value": …}`.
    ("\"type\": \"secret\"", Action::SensitiveOutput),
    ("/api/webhooks/", Action::DiscordHook),
    ("webhookb2/", Action::TeamsHook),
    (":aa", Action::Telegram),
    (":apa91b", Action::FcmServerKey),
    ("::server:", Action::K3sToken),
    ("::node:", Action::K3sToken),
    ("a3-", Action::OnePasswordSecretKey),
    ("token-", Action::RancherToken),
    ("$1$", Action::CryptHash),
    ("$2a$", Action::CryptHash),
    ("$2b$", Action::CryptHash),
    ("$2y$", Action::CryptHash),
    ("$5$", Action::CryptHash),
    ("$6$", Action::CryptHash),
    ("$y$", Action::CryptHash),
    ("$apr1$", Action::CryptHash),
    ("$argon2", Action::CryptHash),
    (":::", Action::NtlmHashes),
    ("q~", Action::AzureSecret),
    (".atlasv1.", Action::Terraform),
    ("discord", Action::Discord),
    ("ac", Action::TwilioSid),
    ("-----begin ", Action::Pem),
    ("ls0tls1crudjti", Action::PemBase64),
    ("eyj", Action::Jwt),
    ("login", Action::Command(Cmd::Login)),
    ("mysql", Action::Command(Cmd::Mysql)),
    ("sshpass", Action::Command(Cmd::Sshpass)),
    ("redis-cli", Action::Command(Cmd::Redis)),
    ("mongo", Action::Command(Cmd::Mongo)),
    ("curl", Action::Command(Cmd::Curl)),
    ("ldap", Action::Command(Cmd::Ldap)),
    ("sqlcmd", Action::Command(Cmd::Sqlcmd)),
    ("bcp", Action::Command(Cmd::Sqlcmd)),
    ("htpasswd", Action::Command(Cmd::Htpasswd)),
    ("smbclient", Action::Command(Cmd::Smb)),
    ("zip -", Action::Command(Cmd::Zip)),
    ("unzip -", Action::Command(Cmd::Zip)),
    // In an argv list: `exec.Command("unzip", "-P", …)`.
    ("zip\"", Action::Command(Cmd::Zip)),
    // `7z` alone is common inside base64: only as a command word.
    ("7z ", Action::Command(Cmd::Zip)),
    ("7za ", Action::Command(Cmd::Zip)),
    ("7z\"", Action::Command(Cmd::Zip)),
    ("sqlplus", Action::Command(Cmd::Oracle)),
    ("expdp", Action::Command(Cmd::Oracle)),
    ("impdp", Action::Command(Cmd::Oracle)),
    ("rman", Action::Command(Cmd::Oracle)),
    ("sqlcl", Action::Command(Cmd::Oracle)),
    ("sqlldr", Action::Command(Cmd::Oracle)),
    ("lftp", Action::Command(Cmd::Lftp)),
    ("xfreerdp", Action::Command(Cmd::Rdp)),
    ("wlfreerdp", Action::Command(Cmd::Rdp)),
    ("sdl-freerdp", Action::Command(Cmd::Rdp)),
    ("rdesktop", Action::Command(Cmd::Rdp)),
    ("snyk", Action::Command(Cmd::Snyk)),
    ("vault login", Action::Command(Cmd::VaultLogin)),
    ("operator unseal", Action::Command(Cmd::VaultLogin)),
    ("wandb login", Action::Command(Cmd::VaultLogin)),
    ("net user", Action::Command(Cmd::NetUser)),
    ("http-basic", Action::Command(Cmd::HttpBasic)),
    ("setx", Action::Command(Cmd::Setx)),
    ("setenv", Action::Command(Cmd::Setx)),
    ("proxy_set_header", Action::Command(Cmd::Setx)),
    ("cqlsh", Action::Command(Cmd::Cqlsh)),
    ("cypher-shell", Action::Command(Cmd::Cqlsh)),
    ("mosquitto_pub", Action::Command(Cmd::Mosquitto)),
    ("ssh-keygen", Action::Command(Cmd::SshKeygen)),
    ("net use", Action::Command(Cmd::NetUse)),
    ("unrar ", Action::Command(Cmd::Zip)),
    ("mosquitto_sub", Action::Command(Cmd::Mosquitto)),
    ("psexec", Action::Command(Cmd::Psexec)),
    ("racadm", Action::Command(Cmd::Racadm)),
    ("mcrcon", Action::Command(Cmd::Rcon)),
    ("rcon-cli", Action::Command(Cmd::Rcon)),
    ("setup:install", Action::Command(Cmd::MagentoSetup)),
    ("createuser ", Action::Command(Cmd::SnmpUser)),
    ("+login ", Action::Command(Cmd::SteamLogin)),
    ("ipmitool", Action::Command(Cmd::Ipmi)),
    ("snmpwalk", Action::Command(Cmd::Snmp)),
    ("snmpget", Action::Command(Cmd::Snmp)),
    ("snmpbulkwalk", Action::Command(Cmd::Snmp)),
    ("snmpset", Action::Command(Cmd::Snmp)),
    ("http ", Action::Command(Cmd::Httpie)),
    ("https ", Action::Command(Cmd::Httpie)),
    ("--arg", Action::Command(Cmd::Setx)),
    ("ngrok", Action::Command(Cmd::Ngrok)),
    ("cloudflared", Action::Command(Cmd::Cloudflared)),
    ("rclone", Action::Command(Cmd::Rclone)),
    ("openssl", Action::Command(Cmd::Openssl)),
    ("rabbitmqctl", Action::Command(Cmd::Rabbitmq)),
    ("codecov", Action::Command(Cmd::Codecov)),
    ("plink", Action::Command(Cmd::Putty)),
    ("pscp", Action::Command(Cmd::Putty)),
    ("psftp", Action::Command(Cmd::Putty)),
    ("alias set", Action::Command(Cmd::MinioAlias)),
    ("host add", Action::Command(Cmd::MinioAlias)),
    ("reset-admin-password", Action::Command(Cmd::ResetPassword)),
    ("hash-password", Action::Command(Cmd::HashPassword)),
    ("convertto-securestring", Action::Command(Cmd::SecureString)),
    ("networkcredential(", Action::NetworkCredential),
    ("echo '", Action::EchoIntoFile),
    ("bundle_", Action::BundlerCredential),
    ("bundle config set", Action::BundlerCredential),
    (" as the ", Action::UsedAs),
    ("setup key", Action::GroupedTotpSeed),
    ("echo \"", Action::EchoIntoFile),
    ("hmac.new(", Action::Argument(1)),
    ("createhmac(", Action::Argument(2)),
    ("hmac.hexdigest(", Action::Argument(2)),
    ("jwt.sign(", Action::Argument(2)),
    ("jwt.encode(", Action::Argument(2)),
    ("jwt.verify(", Action::Argument(2)),
    ("jwt.decode(", Action::Argument(2)),
    ("algoliasearch(", Action::Argument(2)),
    ("getconnection(", Action::Argument(3)),
    // PHP's `new PDO($dsn, 'user', 'X')`.
    ("new pdo(", Action::Argument(3)),
    ("provider :", Action::OmniauthProvider),
    // `auth=("user", "X")` (requests, the Neo4j and Elasticsearch drivers).
    ("auth=(", Action::Argument(2)),
    ("auth.basic(", Action::Argument(2)),
    ("basic_auth=(", Action::Argument(2)),
    // The AWS SDK for Java: `new BasicAWSCredentials(id, "X")`.
    ("basicawscredentials(", Action::Argument(2)),
    // .NET's JWT signing key: `new SymmetricSecurityKey(Encoding.UTF8.GetBytes("X"))`.
    ("securitykey(encoding.utf8.getbytes(", Action::Argument(1)),
    ("securitykey(encoding.ascii.getbytes(", Action::Argument(1)),
    // Razorpay's `new RazorpayClient("rzp_live_…", "X")`.
    ("razorpayclient(", Action::Argument(2)),
    // Braintree's `new BraintreeGateway(environment, merchant, public, "X")`.
    ("braintreegateway(", Action::Argument(4)),
    ("awsbasiccredentials.create(", Action::Argument(2)),
    // Python's `smtplib.SMTP(…).login("user", "X")`, paho-mqtt's
    // `username_pw_set("user", "X")`, rumqttc's `set_credentials("user", "X")`.
    ("smtp.login(", Action::Argument(2)),
    ("username_pw_set(", Action::Argument(2)),
    ("set_credentials(", Action::Argument(2)),
    ("insert into", Action::SqlInsert),
    ("insecure-password ", Action::ProsePassword),
    ("--password-stdin", Action::PipedPassword),
    // `echo X | gh auth login --with-token`, `mollie login --with-token`.
    ("--with-token", Action::PipedPassword),
    ("kty", Action::Jwk),
    ("password is ", Action::ProsePassword),
    ("app password", Action::AppPassword),
    ("passphrase is ", Action::ProsePassword),
    (" pw is ", Action::ProsePassword),
    ("password ", Action::ProseRandom),
    ("value is ", Action::ProseRandom),
    // `elasticsearch-reset-password`: "New value: X".
    ("new value: ", Action::ProseRandom),
    ("token is ", Action::ProseRandom),
    ("key is ", Action::ProseRandom),
    // Django REST framework's `drf_create_token`: "Generated token X for user …".
    ("generated token ", Action::GeneratedToken),
    ("key `", Action::ProseRandom),
    ("token `", Action::ProseRandom),
    ("authtoken ", Action::ProseRandom),
    // "Password" and "API key" in other languages, in prose.
    ("passwort", Action::ForeignWord(context::Named::Password)),
    ("kennwort", Action::ForeignWord(context::Named::Password)),
    (
        "mot de passe",
        Action::ForeignWord(context::Named::Password),
    ),
    ("contraseña", Action::ForeignWord(context::Named::Password)),
    ("contrasena", Action::ForeignWord(context::Named::Password)),
    ("senha", Action::ForeignWord(context::Named::Password)),
    ("wachtwoord", Action::ForeignWord(context::Named::Password)),
    ("hasło", Action::ForeignWord(context::Named::Password)),
    ("haslo", Action::ForeignWord(context::Named::Password)),
    ("пароль", Action::ForeignWord(context::Named::Password)),
    ("Пароль", Action::ForeignWord(context::Named::Password)),
    ("şifre", Action::ForeignWord(context::Named::Password)),
    ("Şifre", Action::ForeignWord(context::Named::Password)),
    ("sifre", Action::ForeignWord(context::Named::Password)),
    ("parola", Action::ForeignWord(context::Named::Password)),
    ("mật khẩu", Action::ForeignWord(context::Named::Password)),
    ("Mật khẩu", Action::ForeignWord(context::Named::Password)),
    ("mat khau", Action::ForeignWord(context::Named::Password)),
    ("kata sandi", Action::ForeignWord(context::Named::Password)),
    ("lösenord", Action::ForeignWord(context::Named::Password)),
    ("Lösenord", Action::ForeignWord(context::Named::Password)),
    ("losenord", Action::ForeignWord(context::Named::Password)),
    ("salasana", Action::ForeignWord(context::Named::Password)),
    ("passord", Action::ForeignWord(context::Named::Password)),
    ("adgangskode", Action::ForeignWord(context::Named::Password)),
    ("heslo", Action::ForeignWord(context::Named::Password)),
    ("jelszó", Action::ForeignWord(context::Named::Password)),
    ("パスワード", Action::ForeignWord(context::Named::Password)),
    ("密码", Action::ForeignWord(context::Named::Password)),
    ("密碼", Action::ForeignWord(context::Named::Password)),
    ("비밀번호", Action::ForeignWord(context::Named::Password)),
    ("암호", Action::ForeignWord(context::Named::Password)),
    ("كلمة المرور", Action::ForeignWord(context::Named::Password)),
    ("كلمة السر", Action::ForeignWord(context::Named::Password)),
    ("पासवर्ड", Action::ForeignWord(context::Named::Password)),
    ("chave da api", Action::ForeignWord(context::Named::ApiKey)),
    ("chave de api", Action::ForeignWord(context::Named::ApiKey)),
    ("klucz api", Action::ForeignWord(context::Named::ApiKey)),
    ("kunci api", Action::ForeignWord(context::Named::ApiKey)),
    ("clave de api", Action::ForeignWord(context::Named::ApiKey)),
    ("clave api", Action::ForeignWord(context::Named::ApiKey)),
    ("clé api", Action::ForeignWord(context::Named::ApiKey)),
    ("clé d'api", Action::ForeignWord(context::Named::ApiKey)),
    ("api-schlüssel", Action::ForeignWord(context::Named::ApiKey)),
    (
        "api-schluessel",
        Action::ForeignWord(context::Named::ApiKey),
    ),
    ("ключ api", Action::ForeignWord(context::Named::ApiKey)),
    ("api ключ", Action::ForeignWord(context::Named::ApiKey)),
    ("apiキー", Action::ForeignWord(context::Named::ApiKey)),
    ("api密钥", Action::ForeignWord(context::Named::ApiKey)),
    ("api 키", Action::ForeignWord(context::Named::ApiKey)),
    ("mdp ", Action::ForeignWord(context::Named::Password)),
    ("mdp:", Action::ForeignWord(context::Named::Password)),
    ("סיסמה", Action::ForeignWord(context::Named::Password)),
    ("סיסמא", Action::ForeignWord(context::Named::Password)),
    ("รหัสผ่าน", Action::ForeignWord(context::Named::Password)),
    ("κωδικός", Action::ForeignWord(context::Named::Password)),
    ("κωδικό", Action::ForeignWord(context::Named::Password)),
    ("salasana", Action::ForeignWord(context::Named::Password)),
    ("lozinka", Action::ForeignWord(context::Named::Password)),
    ("geslo", Action::ForeignWord(context::Named::Password)),
    ("parolă", Action::ForeignWord(context::Named::Password)),
    ("parola ", Action::ForeignWord(context::Named::Password)),
    ("chiave", Action::ForeignApiKey),
    ("nyckel", Action::ForeignApiKey),
    ("sleutel", Action::ForeignApiKey),
    ("clave", Action::ForeignApiKey),
    ("chave", Action::ForeignApiKey),
    ("klucz", Action::ForeignApiKey),
    ("kunci", Action::ForeignApiKey),
    ("khóa", Action::ForeignApiKey),
    ("anahtar", Action::ForeignApiKey),
    ("ключ", Action::ForeignApiKey),
    ("Ключ", Action::ForeignApiKey),
    ("токен", Action::ForeignApiKey),
    ("Токен", Action::ForeignApiKey),
    ("密钥", Action::ForeignApiKey),
    ("秘钥", Action::ForeignApiKey),
    ("키", Action::ForeignApiKey),
    ("토큰", Action::ForeignApiKey),
    ("कुंजी", Action::ForeignApiKey),
    ("مفتاح", Action::ForeignApiKey),
    ("キー", Action::ForeignApiKey),
    ("schlüssel", Action::ForeignApiKey),
    ("clé", Action::ForeignApiKey),
    ("kulcs", Action::ForeignApiKey),
    ("avain", Action::ForeignApiKey),
    ("nøgle", Action::ForeignApiKey),
    ("nøkkel", Action::ForeignApiKey),
    ("رمز عبور", Action::ForeignWord(context::Named::Password)),
    ("পাসওয়ার্ড", Action::ForeignWord(context::Named::Password)),
    ("nenosiri", Action::ForeignWord(context::Named::Password)),
    ("jelszava", Action::ForeignWord(context::Named::Password)),
    ("jelszavát", Action::ForeignWord(context::Named::Password)),
    ("lozinku", Action::ForeignWord(context::Named::Password)),
    ("hasła", Action::ForeignWord(context::Named::Password)),
    ("トークン", Action::ForeignApiKey),
    ("| password |", Action::PasswordColumn),
    ("api key ", Action::NamedThenColon),
    ("new key ", Action::NamedThenColon),
    ("api token ", Action::NamedThenColon),
    ("application key ", Action::NamedThenColon),
    ("access token ", Action::NamedThenColon),
    ("auth token ", Action::NamedThenColon),
    ("secret key ", Action::NamedThenColon),
    ("private key ", Action::NamedThenColon),
    // `cast wallet new`: "Private key: <64 hex digits>".
    ("private key:", Action::NamedThenColon),
    // "here's the Algolia admin key, just use it directly: X".
    ("admin key", Action::NamedThenColon),
    ("server key ", Action::NamedThenColon),
    // `vault operator init` prints "Unseal Key 1: …".
    ("unseal key ", Action::NamedThenColon),
    ("webhook secret ", Action::NamedThenColon),
    ("api-key ", Action::NamedThenColon),
    ("pat ", Action::NamedThenColon),
    ("secret_key ", Action::NamedThenColon),
    ("token ", Action::NamedThenColon),
    ("secret ", Action::NamedThenColon),
    ("token：", Action::NamedThenColon),
    ("key：", Action::NamedThenColon),
    ("login ", Action::LoginPair),
    ("login: ", Action::LoginPair),
    ("key for ", Action::ProseRandom),
    ("token for ", Action::ProseRandom),
    (" pw ", Action::ProsePassword),
    ("secret ", Action::ProseRandom),
    ("secret is ", Action::ProseRandom),
    ("token to ", Action::ProseRandom),
    ("key to ", Action::ProseRandom),
    (", pw: ", Action::ProsePassword),
    ("creds: ", Action::LoginPair),
    ("heroku", Action::UuidKey),
    ("that's the ", Action::NamedAfter),
    ("that is the ", Action::NamedAfter),
    ("this is the ", Action::NamedAfter),
    ("private-lines:", Action::PuttyPrivate),
    ("sudo -s", Action::PipedPassword),
    ("> auth ", Action::RedisAuth),
    ("auth-pass ", Action::SentinelAuthPass),
    ("on >", Action::RedisAcl),
    ("5432:", Action::PgpassLine),
    ("*:*:", Action::PgpassLine),
    ("--data-file=-", Action::PipedPassword),
    ("--data-file -", Action::PipedPassword),
    ("secret create", Action::PipedPassword),
    ("devops login", Action::PipedPassword),
    ("chpasswd", Action::PipedPassword),
    // RHEL's `echo X | passwd --stdin user`.
    ("passwd --stdin", Action::PipedPassword),
    ("gh secret set", Action::PipedPassword),
    ("wrangler secret put", Action::PipedPassword),
    ("vercel env add", Action::PipedPassword),
    ("netscape", Action::CookieJar),
    ("secret set", Action::Command(Cmd::SecretSet)),
    ("secrets set", Action::Command(Cmd::SecretSet)),
    ("config:set", Action::Command(Cmd::SecretSet)),
    // Session cookie names and wallet phrases (for `Assign`).
    ("sessid", Action::Assign),
    (".sid", Action::Assign),
    ("sessionid", Action::Assign),
    ("_session", Action::Assign),
    ("mnemonic", Action::Phrase),
    ("wif", Action::Wif),
    ("importprivkey", Action::Wif),
    ("dumpprivkey", Action::Wif),
    ("solana", Action::ByteArrayKey),
    ("keypair", Action::ByteArrayKey),
    ("id.json", Action::ByteArrayKey),
    ("phantom", Action::ByteArrayKey),
    ("nsec1", Action::Nostr),
    ("phrase", Action::Phrase),
    ("seed words", Action::Phrase),
    // Electrum's and Monero's "Specify Electrum seed: …".
    ("seed:", Action::Phrase),
    ("recovery words", Action::Phrase),
    ("derive-private-key", Action::Phrase),
    ("from_key(", Action::EvmKey),
    ("metamask", Action::EvmKey),
    ("wallet(", Action::EvmKey),
    ("accounts", Action::EvmKey),
    ("keyname", Action::AzureKey),
    ("identified ", Action::SqlIdentified),
    (": psk ", Action::IpsecSecret),
    (": eap ", Action::IpsecSecret),
    (": xauth ", Action::IpsecSecret),
    ("set password", Action::SqlSetPassword),
    ("variable ", Action::TerraformVariable),
    ("unseal_keys", Action::UnsealKeys),
    ("unseal with", Action::UnsealKeys),
    ("asana", Action::AsanaPat),
    ("<<<", Action::HereString),
    ("\"encoded", Action::ElasticEncoded),
    ("'crypt'", Action::MagentoCrypt),
    // Honeycomb's ingest key travels as `X-Honeycomb-Team`.
    ("honeycomb-team", Action::Assign),
    ("cohere", Action::ProviderNear(40)),
    ("mistral", Action::ProviderNear(32)),
    ("00d", Action::Salesforce),
    ("-us", Action::Mailchimp),
    ("nral", Action::NewRelicLicense),
    ("totp(", Action::TotpSeed),
    ("azdo", Action::AzureDevops),
    ("thin:", Action::OracleThin),
    ("@//", Action::EzConnect),
    ("tcp(", Action::GoMysql),
    ("unix(", Action::GoMysql),
    ("pgpass", Action::Pgpass),
];

/// Every pattern the detectors start from, with its action.
static SCANNER: LazyLock<scanner::Scanner<Action>> = LazyLock::new(|| {
    let rules = rules::TOKEN_RULES
        .iter()
        .enumerate()
        .map(|(i, r)| (r.prefix.to_string(), Action::Token(i)));
    let keywords = KEYWORDS.iter().map(|(kw, a)| ((*kw).to_string(), *a));
    let printed = printed::TRIGGERS
        .iter()
        .enumerate()
        .map(|(i, (t, _))| ((*t).to_string(), Action::Printed(i)));
    scanner::Scanner::new(rules.chain(keywords).chain(printed))
});

/// Runs the detector of `action` for the keyword found at `start..end`.
fn detect(text: &[u8], start: usize, end: usize, action: Action, out: &mut Vec<Finding>) {
    match action {
        Action::Token(i) => {
            let rule = &rules::TOKEN_RULES[i];
            let before = out.len();
            rules::match_token(text, start, rule, out);
            if out.len() > before && rule.name == "aws_access_key_id" {
                context::aws_secret_near(text, start, out[before].end, out);
            }
            if out.len() > before && rule.name == "twilio_api_key" {
                context::twilio_secret_after(text, out[before].end, out);
            }
        }
        Action::Assign => {
            generic::assignment(text, start, end, out);
            labels::spaced_label(text, start, end, out);
        }
        Action::AssignBefore => generic::assignment(text, start, end - 1, out),
        Action::QueryCode => http::query_code(text, start, end, out),
        Action::Authorization => http::authorization(text, start, end, out),
        Action::Bearer => http::bearer(text, start, end, out),
        Action::Basic => http::basic(text, start, end, out),
        Action::Cookie => http::cookie(text, start, end, out),
        Action::Url => http::url_userinfo(text, start, out),
        Action::Signature => http::url_signature(text, start, end, out),
        Action::SlackHook => http::slack_webhook(text, end, out),
        Action::DiscordHook => http::discord_webhook(text, start, end, out),
        Action::TeamsHook => http::teams_webhook(text, end, out),
        Action::Telegram => shapes::telegram(text, start, out),
        Action::FcmServerKey => shapes::fcm_server_key(text, start, out),
        Action::K3sToken => shapes::k3s_token(text, start, end, out),
        Action::OnePasswordSecretKey => shapes::onepassword_secret_key(text, start, out),
        Action::RancherToken => shapes::rancher_token(text, start, end, out),
        Action::CryptHash => shapes::crypt_hash(text, start, end, out),
        Action::NtlmHashes => shapes::ntlm_hashes(text, end - 3, out),
        Action::AzureSecret => shapes::azure_client_secret(text, start, out),
        Action::Terraform => shapes::terraform(text, start, end, out),
        Action::Discord => context::discord_bot_token(text, end, out),
        Action::ProviderNear(len) => context::provider_key_near(text, start, end, len, out),
        Action::UnsealKeys => context::unseal_keys(text, end, out),
        Action::AsanaPat => context::asana_pat(text, start, end, out),
        Action::HereString => generic::here_string(text, start, end, out),
        Action::ElasticEncoded => context::elastic_encoded(text, start, end, out),
        Action::MagentoCrypt => context::magento_crypt_key(text, end, out),
        Action::Salesforce => shapes::salesforce(text, start, out),
        Action::Mailchimp => shapes::mailchimp(text, start, out),
        Action::NewRelicLicense => shapes::new_relic_license(text, start, out),
        Action::TotpSeed => context::totp_seed(text, end, out),
        Action::AzureDevops => shapes::azure_devops(text, start, out),
        Action::OracleThin => dsn::oracle_thin(text, start, end, out),
        Action::EzConnect => dsn::ez_connect(text, start, out),
        Action::GoMysql => dsn::go_mysql(text, start, out),
        Action::Pgpass => dsn::pgpass_after(text, end, out),
        Action::PgpassLine => dsn::pgpass_at(text, start, out),
        Action::SqlIdentified => generic::identified(text, end, out),
        Action::IpsecSecret => generic::ipsec_secret(text, end, out),
        Action::SqlSetPassword => generic::set_password(text, end, out),
        Action::TerraformVariable => generic::terraform_variable(text, end, out),
        Action::Phrase => context::recovery_phrase(text, end, out),
        Action::Wif => keys::wif_near(text, start, end, out),
        Action::ByteArrayKey => keys::byte_array_key_near(text, start, out),
        Action::Nostr => keys::nostr_key(text, start, end, out),
        Action::AzureKey => context::azure_key_near(text, end, out),
        Action::EvmKey => context::evm_key_near(text, end, out),
        Action::RedisAuth => commands::redis_auth(text, end, out),
        Action::SentinelAuthPass => commands::sentinel_auth_pass(text, end, out),
        Action::RedisAcl => commands::redis_acl(text, start, out),
        Action::PipedPassword => commands::piped_password(text, start, out),
        Action::Jwk => keys::jwk(text, start, out),
        Action::ProsePassword => context::prose_password(text, end, out),
        Action::ProseRandom => context::prose_random(text, end, out),
        Action::AppPassword => context::app_password(text, end, out),
        Action::LoginPair => context::login_pair(text, end, out),
        Action::GeneratedToken => context::generated_token(text, end, out),
        Action::NamedThenColon => context::named_then_colon(text, end, out),
        Action::PasswordColumn => context::password_column(text, start, end, out),
        Action::HookSegment(mattermost) => context::hook_segment(text, end, mattermost, out),
        Action::ZapierHook => context::zapier_hook(text, end, out),
        Action::Plaid => context::plaid_token(text, start, end, out),
        Action::SaslUserKey => context::sasl_user_key(text, end, out),
        Action::PlistKey => pairs::plist_value(text, end, out),
        Action::SensitiveOutput => pairs::sensitive_output(text, start, out),
        Action::XmlValue => pairs::value_in_secret_element(text, start, end, out),
        Action::P4Tickets => context::p4_tickets(text, end, out),
        Action::ForeignWord(named) => {
            if !context::inside_random_run(text, start, end) {
                context::named_in_prose(text, end, named, out)
            }
        }
        Action::ForeignApiKey => context::foreign_api_key(text, start, end, out),
        Action::UuidKey => context::uuid_key_near(text, start, end, out),
        Action::NamedAfter => context::named_after(text, start, end, out),
        Action::NetworkCredential => commands::network_credential(text, end, out),
        Action::EchoIntoFile => commands::echo_into_file(text, end, out),
        Action::BundlerCredential => commands::bundler_credential(text, start, end, out),
        Action::UsedAs => context::used_as_secret(text, start, end, out),
        Action::GroupedTotpSeed => context::grouped_totp_seed(text, end, out),
        Action::Argument(n) => commands::argument(text, end, n, out),
        Action::OmniauthProvider => {
            let line_end = lex::break_after(text, end, 512);
            commands::argument(&text[..line_end], end, 3, out)
        }
        Action::SqlInsert => generic::sql_insert(text, end, out),
        Action::PuttyPrivate => keys::putty_private(text, end, out),
        Action::CookieJar => http::cookie_jar(text, end, out),
        // Handled in `find_secrets_after`, which carries what is pending.
        Action::Printed(_) => {}
        Action::TwilioSid => context::twilio(text, start, out),
        Action::Pem => keys::pem(text, start, out),
        Action::PemBase64 => keys::pem_base64(text, start, out),
        Action::Jwt => keys::jwt(text, start, out),
        Action::Command(cmd) => commands::command(text, start, end, cmd, out),
    }
}

/// Every secret in `text`, as sorted, non-overlapping spans (overlapping or
/// touching matches are merged, so no part of a secret survives).
pub fn find_secrets(text: &[u8]) -> Vec<Finding> {
    find_secrets_after(text, None).0
}

/// What a command at the end of one piece of text prints, which the next
/// piece (a stream's next line) begins with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PendingOutput(printed::Printed);

/// [`find_secrets`] for a text that may begin with the output of a command
/// that ended the text before it; also returns what this text leaves pending.
pub fn find_secrets_after(
    text: &[u8],
    pending: Option<PendingOutput>,
) -> (Vec<Finding>, Option<PendingOutput>) {
    let scanner = &*SCANNER;
    let mut found = Vec::new();
    let mut next = pending.filter(|&PendingOutput(kind)| {
        printed::output_secret(text, 0, text.len().min(printed::WINDOW), kind, &mut found)
            || printed::is_warning_line(text)
    });
    scanner.scan(text, |start, end, action| match action {
        Action::Printed(i) => {
            if let Some(kind) = printed::after_command(text, start, end, i, &mut found) {
                next = Some(PendingOutput(kind));
            }
        }
        _ => detect(text, start, end, action, &mut found),
    });
    context::discord_by_dots(text, &mut found);
    // A Google API key an app ships (Firebase's web config, a Maps script,
    // `google-services.json`) names the project; it is no credential.
    let shipped =
        |at: usize| text[at..].starts_with(b"AIza") && context::shipped_google_key(text, at);
    found.retain(|f| !in_aws_arn(text, f.start) && !shipped(f.start));
    also_elsewhere(text, &mut found);
    (merge(found), next)
}

/// Whether `at` is inside an AWS ARN (`arn:aws:secretsmanager:…:secret:
/// prod/db-AbC123`): a resource's name, which holds no secret, though its
/// parts (`secret:…`) read like one.
fn in_aws_arn(text: &[u8], at: usize) -> bool {
    let token = lex::run_back(text, at, 256, |b| {
        b.is_ascii_alphanumeric() || matches!(b, b':' | b'/' | b'-' | b'_' | b'.' | b'+' | b'@')
    });
    text[token..].starts_with(b"arn:aws")
}

/// Every other place in `text` where a found secret appears as a word of
/// its own: a command's output is often logged two or three times
/// (`stdout`, `aggregated_output`, `formatted_output`), and only one of them
/// may stand where a detector looks.
fn also_elsewhere(text: &[u8], found: &mut Vec<Finding>) {
    let n = found.len();
    // A secret found in several places is looked for once.
    let mut looked_for = std::collections::HashSet::new();
    for k in 0..n {
        let (start, end) = (found[k].start, found[k].end);
        let secret = &text[start..end];
        if end - start < 8 || !looked_for.insert(secret) {
            continue;
        }
        let bounded = |s: usize, e: usize| {
            (lex::starts_word(text, s) || !lex::alnum(secret[0]))
                && (lex::ends_word(text, e) || !lex::alnum(secret[secret.len() - 1]))
        };
        for at in memchr::memmem::find_iter(text, secret) {
            if at != start && bounded(at, at + secret.len()) {
                found.push(Finding {
                    rule: found[k].rule,
                    start: at,
                    end: at + secret.len(),
                });
            }
        }
    }
}

/// Sorts findings and merges overlapping or touching ones.
fn merge(mut found: Vec<Finding>) -> Vec<Finding> {
    if found.is_empty() {
        return found;
    }
    found.sort_by_key(|f| (f.start, std::cmp::Reverse(f.end)));
    let mut merged: Vec<Finding> = Vec::with_capacity(found.len());
    for f in found {
        match merged.last_mut() {
            Some(last) if f.start <= last.end => last.end = last.end.max(f.end),
            _ => merged.push(f),
        }
    }
    merged
}

/// Replaces every secret in `text` with [`REDACTED`].
pub fn redact(text: &str) -> Cow<'_, str> {
    redact_with_findings(text).0
}

/// Like [`redact`], also returning what was found (never the secret itself).
pub fn redact_with_findings(text: &str) -> (Cow<'_, str>, Vec<Finding>) {
    let mut findings = find_secrets(text.as_bytes());
    if findings.is_empty() {
        return (Cow::Borrowed(text), findings);
    }
    // Detectors cut at ASCII bytes, so spans sit on character boundaries;
    // widen defensively rather than ever slicing inside a character.
    for f in &mut findings {
        f.start = floor_char_boundary(text, f.start);
        f.end = ceil_char_boundary(text, f.end);
    }
    let mut out = String::with_capacity(text.len());
    let mut at = 0;
    for f in &findings {
        out.push_str(&text[at..f.start.max(at)]);
        out.push_str(REDACTED);
        at = at.max(f.end);
    }
    out.push_str(&text[at..]);
    (Cow::Owned(out), findings)
}

/// [`redact_with_findings`] for bytes that need not be UTF-8 (the CLI filter).
pub fn redact_bytes(text: &[u8]) -> (Cow<'_, [u8]>, Vec<Finding>) {
    let findings = find_secrets(text);
    (replace_bytes(text, &findings), findings)
}

/// `text` with each finding replaced by [`REDACTED`].
pub(crate) fn replace_bytes<'a>(text: &'a [u8], findings: &[Finding]) -> Cow<'a, [u8]> {
    if findings.is_empty() {
        return Cow::Borrowed(text);
    }
    let mut out = Vec::with_capacity(text.len());
    let mut at = 0;
    for f in findings {
        out.extend_from_slice(&text[at..f.start]);
        out.extend_from_slice(REDACTED.as_bytes());
        at = f.end;
    }
    out.extend_from_slice(&text[at..]);
    Cow::Owned(out)
}

/// Replaces the secret a command's output holds because of the command
/// (`cat config/master.key`), when input and output are held apart.
fn redact_printed(command: &str, output: String) -> String {
    let mut found = Vec::new();
    printed::in_output(command.as_bytes(), output.as_bytes(), &mut found);
    // Every value it printed: a loop prints several keys.
    match replace_bytes(output.as_bytes(), &merge(found)) {
        Cow::Borrowed(_) => output,
        Cow::Owned(bytes) => String::from_utf8(bytes)
            .unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned()),
    }
}

/// Redacts every text field of a transcript event.
pub fn redact_event(event: crate::sources::Event) -> crate::sources::Event {
    use crate::sources::Event;
    let fix = |s: String| match redact(&s) {
        Cow::Borrowed(_) => s,
        Cow::Owned(o) => o,
    };
    match event {
        Event::Message(mut m) => {
            m.text = fix(m.text);
            Event::Message(m)
        }
        Event::ToolCall(mut c) => {
            // What the command printed may be a secret only the command names.
            c.output = c.output.map(|o| redact_printed(&c.input, o));
            c.input = fix(c.input);
            c.output = c.output.map(fix);
            Event::ToolCall(c)
        }
    }
}

#[cfg(test)]
mod tests;
