//! Negatives: text that looks secret-adjacent but holds no secret. Any change
//! to one of these is a false positive.

use super::*;

/// One text that must come through unchanged.
pub struct Negative {
    pub category: &'static str,
    pub text: String,
}

/// Fixed texts by category.
const FIXED: &[(&str, &str)] = &[
    // Placeholders and references.
    ("placeholders", "OPENAI_API_KEY=YOUR_API_KEY"),
    ("placeholders", "OPENAI_API_KEY=your-api-key-here"),
    ("placeholders", "export ANTHROPIC_API_KEY=<your-key>"),
    ("placeholders", "GITHUB_TOKEN=${GITHUB_TOKEN}"),
    ("placeholders", "token: ${{ secrets.GITHUB_TOKEN }}"),
    ("placeholders", "password: \"{{ .Values.db.password }}\""),
    ("placeholders", "api_key = \"{{ secrets.OPENAI }}\""),
    ("placeholders", "DB_PASSWORD=$DB_PASSWORD"),
    ("placeholders", "password: changeme"),
    ("placeholders", "password = \"***\""),
    ("placeholders", "\"api_key\": \"REDACTED\""),
    ("placeholders", "\"api_key\": \"[REDACTED_SECRET]\""),
    ("placeholders", "OPENAI_API_KEY=[REDACTED_SECRET]"),
    ("placeholders", "Authorization: Bearer [REDACTED_SECRET]"),
    ("placeholders", "postgres://app:[REDACTED_SECRET]@db:5432/x"),
    (
        "placeholders",
        "-----BEGIN RSA PRIVATE KEY-----\n[REDACTED_SECRET]\n-----END RSA PRIVATE KEY-----",
    ),
    (
        "placeholders",
        "secret_key = op://Engineering/Stripe/credential",
    ),
    ("placeholders", "API_TOKEN=xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"),
    ("placeholders", "Authorization: Bearer <token>"),
    ("placeholders", "Authorization: Bearer $TOKEN"),
    (
        "placeholders",
        "curl -H \"Authorization: Bearer ${API_TOKEN}\" https://api.example.com",
    ),
    ("placeholders", "set PASSWORD=%DB_PASSWORD%"),
    (
        "placeholders",
        "DATABASE_URL=postgres://user:password@localhost:5432/app",
    ),
    (
        "placeholders",
        "DATABASE_URL=postgres://${PGUSER}:${PGPASSWORD}@db/app",
    ),
    ("placeholders", "OPENAI_API_KEY=sk-..."),
    ("placeholders", "\"token\": \"<redacted>\""),
    ("placeholders", "password: ********"),
    (
        "placeholders",
        "aws_secret_access_key = YOUR_SECRET_ACCESS_KEY",
    ),
    (
        "placeholders",
        "STRIPE_SECRET_KEY=sk_live_xxxxxxxxxxxxxxxxxxxxxxxx",
    ),
    (
        "placeholders",
        "docker login -u $DOCKER_USER -p $DOCKER_PASS",
    ),
    (
        "placeholders",
        "echo \"$DOCKER_PASSWORD\" | docker login -u ci --password-stdin",
    ),
    ("placeholders", "mysql -u root -p shop"),
    (
        "placeholders",
        "--token <TOKEN>    API token (or set MEMKIT_TOKEN)",
    ),
    (
        "placeholders",
        "  -p, --password PASSWORD   the password to use",
    ),
    ("placeholders", "token = os.environ[\"API_TOKEN\"]"),
    ("placeholders", "api_key = os.getenv(\"OPENAI_API_KEY\")"),
    ("placeholders", "const apiKey = process.env.OPENAI_API_KEY;"),
    ("placeholders", "password: !vault |"),
    ("placeholders", "\"password\": null"),
    ("placeholders", "password: \"\""),
    // Code and identifiers.
    ("code", "def login(username: str, password: str) -> Token:"),
    ("code", "password = getpass.getpass(\"Password: \")"),
    (
        "code",
        "if token is None:\n    raise AuthError(\"missing token\")",
    ),
    ("code", "let secret_key = load_key(&path)?;"),
    (
        "code",
        "password_hash = bcrypt.hashpw(password.encode(), bcrypt.gensalt())",
    ),
    (
        "code",
        "response = client.chat.completions.create(model=\"gpt-4o\", max_tokens=1024)",
    ),
    (
        "code",
        "pub struct Credentials { pub token: String, pub expires_at: u64 }",
    ),
    (
        "code",
        "api_key: str = Field(..., description=\"API key for the service\")",
    ),
    ("code", "const token = await getAccessToken(session);"),
    ("code", "self.secret = secret"),
    ("code", "password = hashed"),
    ("code", "password: dbPassword,"),
    ("code", "if password == confirm_password:"),
    ("code", "key: user_id"),
    ("code", "cache_key = f\"user:{user_id}:profile\""),
    ("code", "primary_key: id"),
    ("code", "sort_key: created_at"),
    (
        "code",
        "tokenizer = AutoTokenizer.from_pretrained(\"bert-base-uncased\")",
    ),
    ("code", "fn refresh_token(&self) -> Result<Token, Error>"),
    ("code", "private_key_path = \"/etc/ssl/private/server.key\""),
    ("code", "SSH_KEY_PATH=~/.ssh/id_ed25519"),
    (
        "code",
        "GOOGLE_APPLICATION_CREDENTIALS=/home/dev/keys/service-account.json",
    ),
    ("code", "let key = format!(\"{}:{}\", namespace, name);"),
    (
        "code",
        "            valueFrom:\n              secretKeyRef:\n                name: db-secret\n                key: password",
    ),
    ("code", "secretName: tls-cert"),
    ("code", "kind: Secret\nmetadata:\n  name: app-secrets"),
    ("code", "env:\n  NPM_TOKEN: ${{ secrets.NPM_TOKEN }}"),
    ("code", "token_type: Bearer"),
    ("code", "\"token_type\": \"bearer\", \"expires_in\": 3600"),
    ("code", "auth: required"),
    ("code", "credentials: include"),
    ("code", "\"auth\": true"),
    ("code", "passphrase: str | None = None"),
    ("code", "pass"),
    ("code", "    else:\n        pass"),
    ("code", "ENV PATH=/usr/local/bin:$PATH"),
    ("code", "[package]\nname = \"memkit\"\nversion = \"0.1.0\""),
    (
        "code",
        "use std::collections::HashMap;\nlet mut keys: HashMap<String, u32> = HashMap::new();",
    ),
    ("code", "keyboard.on('keydown', (e) => e.key === 'Enter')"),
    ("code", "monkey.patch_all()"),
    ("code", "session_token_ttl_seconds = 3600"),
    (
        "code",
        "\"next_page_token\": \"CiAKGjBpNDd2Nmp2Zml2cXRwYjBpOXA3m3\"",
    ),
    ("code", "CancellationToken token = cts.Token;"),
    ("code", "basic_auth: Option<BasicAuth>,"),
    // Code seen in real sources that early versions redacted.
    ("code", "        colon2_token: node.colon2_token,"),
    ("code", "    type Token = private::IdentAny;"),
    ("code", "    password: Option<String>,"),
    ("code", "pub log_passwd: __u32,"),
    ("code", "pub const IOC_OPAL_SET_PW: u32 = 2183164128;"),
    ("code", "        pub pw_passwd: *const c_char,"),
    ("code", "    DEVSTAT_PRIORITY_PASS = 0x030,"),
    ("code", "    pub Key: KERB_CRYPTO_KEY32,"),
    ("code", "    pub ExportKey: BCryptExportKeyFn,"),
    (
        "code",
        "    check_private_key_bytes: x25519_check_private_key_bytes,",
    ),
    (
        "code",
        "pub const MsV1_0ChangePassword: MSV1_0_PROTOCOL_MESSAGE_TYPE = 5i32;",
    ),
    (
        "code",
        "pub const InheritPrivateKey: X509RequestInheritOptions = 3i32;",
    ),
    ("code", "    let key = \"http.schannelUseSSLCAInfo\";"),
    (
        "code",
        "    // Parse local datetime `key = 1979-05-27T00:32:00.999999`.",
    ),
    (
        "code",
        "let cookie: Cookie = Cookie::build((\"name\", \"value\"))",
    ),
    (
        "code",
        "param3: *mut super::Authorization::UI::ISecurityInformation",
    ),
    ("code", "authorization = base64.decodebytes(authorization)"),
    (
        "code",
        "raise TypeError(\"pwd: expected bytes, got %s\" % type(pwd))",
    ),
    (
        "code",
        "self, private_key: ed25519.Ed25519PrivateKey, f_priv: _FragList",
    ),
    (
        "code",
        "user_pass = '%s:%s' % (unquote(user), unquote(password))",
    ),
    (
        "prose",
        "Credentials can be provided via the --username and --password options.",
    ),
    (
        "urls",
        "Proxy URLs take the form `[protocol://][user[:password]@]proxyhost[:port]`.",
    ),
    // Prose.
    (
        "prose",
        "Rotate the API key every 90 days and never commit it.",
    ),
    ("prose", "The password must contain at least 12 characters."),
    (
        "prose",
        "Pass the token in the Authorization header, not in the URL.",
    ),
    (
        "prose",
        "Set OPENAI_API_KEY in your shell before running the script.",
    ),
    (
        "prose",
        "Bearer tokens expire after one hour; refresh them with the refresh token.",
    ),
    (
        "prose",
        "Authorization: the process of deciding what a user may do.",
    ),
    ("prose", "Basic usage of the tool is described below."),
    (
        "prose",
        "Cookie: a small piece of data stored by the browser.",
    ),
    (
        "prose",
        "I asked the team about the risk-assessment and the kiosk-mode rollout.",
    ),
    ("prose", "We use a key-value store for session data."),
    ("prose", "The secret to good tests is small fixtures."),
    ("prose", "Bearer of good news: the build is green."),
    ("prose", "Joined the discord server to ask about the bot."),
    (
        "prose",
        "Use the login page to sign in; docker login also works.",
    ),
    (
        "prose",
        "The AC adapter and the ACME certificate both expired.",
    ),
    ("prose", "sk-learn is a common misspelling of scikit-learn."),
    // Tool output.
    (
        "tool_output",
        "test result: ok. 42 passed; 0 failed; 0 ignored",
    ),
    (
        "tool_output",
        "=== RUN   TestTokenRefresh\n--- PASS: TestTokenRefresh (0.00s)\nPASS\nok  \tgithub.com/acme/auth\t0.012s",
    ),
    (
        "tool_output",
        "================ 12 passed, 1 skipped in 0.84s ================",
    ),
    (
        "tool_output",
        "   Compiling memkit v0.1.0 (/home/dev/memkit)\n    Finished `dev` profile [unoptimized + debuginfo] target(s) in 4.21s",
    ),
    (
        "tool_output",
        "added 231 packages, and audited 232 packages in 3s\nfound 0 vulnerabilities",
    ),
    (
        "tool_output",
        "NAME                      READY   STATUS    RESTARTS   AGE\napi-7d9f8c6b5-x2k8p       1/1     Running   0          3d",
    ),
    (
        "tool_output",
        "drwx------  2 dev dev 4096 Mar  4 10:22 .ssh\n-rw-------  1 dev dev  411 Mar  4 10:22 id_ed25519",
    ),
    (
        "tool_output",
        "{\"type\":\"event_msg\",\"payload\":{\"type\":\"token_count\",\"info\":{\"total_token_usage\":{\"input_tokens\":18234,\"cached_input_tokens\":9984,\"output_tokens\":612,\"reasoning_output_tokens\":256,\"total_tokens\":18846}}}}",
    ),
    (
        "tool_output",
        "{\"cmd\":\"pwd\",\"workdir\":\"/Users/dev/work\"}",
    ),
    ("tool_output", "$ pwd\n/home/dev/projects/api"),
    (
        "tool_output",
        "OLDPWD=/home/dev\nPWD=/home/dev/projects/api",
    ),
    (
        "tool_output",
        "warning: unused variable: `token`\n  --> src/auth.rs:12:9",
    ),
    (
        "tool_output",
        "error[E0425]: cannot find value `secret_key` in this scope",
    ),
    ("tool_output", "Successfully tagged acme/api:latest"),
    ("tool_output", "Login Succeeded"),
    // URLs without credentials.
    (
        "urls",
        "https://api.github.com/repos/acme/api/pulls?state=open&per_page=100",
    ),
    ("urls", "git@github.com:acme/api.git"),
    ("urls", "ssh://git@gitlab.example.com:2222/acme/api.git"),
    ("urls", "postgres://localhost:5432/shop"),
    ("urls", "redis://cache.internal:6379/0"),
    (
        "urls",
        "https://example.com/users/alice@example.com/profile",
    ),
    (
        "urls",
        "https://accounts.google.com/o/oauth2/v2/auth?client_id=123.apps.googleusercontent.com&redirect_uri=http://localhost:8080&response_type=code&scope=openid",
    ),
    ("urls", "http://user@proxy.internal:3128"),
    ("urls", "https://docs.stripe.com/keys#obtain-api-keys"),
    (
        "urls",
        "https://hooks.slack.com/services/T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX",
    ),
    ("urls", "mailto:security@example.com"),
    // Public material.
    (
        "public",
        "-----BEGIN CERTIFICATE-----\nMIIDdzCCAl+gAwIBAgIEAgAAuTANBgkqhkiG9w0BAQUFADBaMQswCQYDVQQGEwJJ\n-----END CERTIFICATE-----",
    ),
    (
        "public",
        "-----BEGIN PUBLIC KEY-----\nMIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEAu1SU1LfVLPHCozMxH2Mo\n-----END PUBLIC KEY-----",
    ),
    (
        "public",
        "-----BEGIN PGP PUBLIC KEY BLOCK-----\n\nmQINBGBj4eQBEADk3xq0Zq0iTz5v3z2u6T5c\n-----END PGP PUBLIC KEY BLOCK-----",
    ),
];

/// Documented example keys (split so this file holds none in one piece).
fn documented() -> Vec<String> {
    [
        format!("AWS_ACCESS_KEY_ID={}{}", "AKIAIOSFODNN7", "EXAMPLE"),
        format!(
            "aws_secret_access_key = {}{}",
            "wJalrXUtnFEMI/K7MDENG/bPxRfi", "CYEXAMPLEKEY"
        ),
        format!("export AWS_ACCESS_KEY_ID={}{}", "AKIAI44QH8DHB", "EXAMPLE"),
        format!(
            "stripe.api_key = \"{}{}\"",
            "sk_test_", "4eC39HqLyjWDarjtT1zdp7dc"
        ),
        format!(
            "curl https://api.stripe.com/v1/charges -u {}{}:",
            "sk_test_", "BQokikJOvBiI2HlWgH4olfQ2"
        ),
        format!(
            "Authorization: token {}{}",
            "ghp_", "16C7e42F292c6912E7710c838347Ae178B4a"
        ),
        format!(
            "SLACK_BOT_TOKEN={}{}",
            "xoxb-", "not-a-real-token-this-will-not-work"
        ),
        format!(
            "Authorization: Bearer {}.{}.{}",
            "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9",
            "eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0IjoxNTE2MjM5MDIyfQ",
            "SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c"
        ),
    ]
    .into()
}

fn generated(rng: &mut Rng) -> Vec<(&'static str, String)> {
    let mut out = Vec::new();
    for _ in 0..12 {
        let sha = rng.string(HEX, 40);
        out.push(("git", format!("commit {sha}\nAuthor: Dev <dev@example.com>\nDate:   Tue Mar 4 10:22:31 2025 +0100\n\n    Fix token refresh race in auth middleware")));
        out.push((
            "git",
            format!(
                "{} (HEAD -> main, origin/main) Rotate keys and passwords in CI",
                &sha[..7]
            ),
        ));
        out.push((
            "git",
            format!(
                "Merge: {} {}\nindex {}..{} 100644",
                rng.string(HEX, 7),
                rng.string(HEX, 7),
                rng.string(HEX, 12),
                rng.string(HEX, 12)
            ),
        ));
        out.push((
            "git",
            format!(
                "\"sha\": \"{}\", \"tree\": {{\"sha\": \"{}\"}}",
                rng.string(HEX, 40),
                rng.string(HEX, 64)
            ),
        ));
    }
    for _ in 0..12 {
        let id = uuid(rng);
        out.push((
            "uuids",
            format!(
                "{{\"session_id\": \"{id}\", \"turn_id\": \"{}\"}}",
                uuid(rng)
            ),
        ));
        out.push(("uuids", format!("X-Request-Id: {id}")));
        out.push(("uuids", format!("thread {id} resumed")));
    }
    for _ in 0..10 {
        out.push((
            "hashes",
            format!("\"integrity\": \"sha512-{}==\"", rng.string(B64, 86)),
        ));
        out.push((
            "hashes",
            format!(
                "golang.org/x/{} v0.{}.0 h1:{}=",
                rng.pick(&["text", "net", "sys", "crypto"]),
                rng.range(1, 30),
                rng.string(B64, 43)
            ),
        ));
        out.push((
            "hashes",
            format!("FROM node:20-alpine@sha256:{}", rng.string(HEX, 64)),
        ));
        out.push(("hashes", format!("checksum = \"{}\"", rng.string(HEX, 64))));
        out.push((
            "hashes",
            format!("  integrity sha1-{}=", rng.string(B64, 27)),
        ));
        out.push(("hashes", format!("--hash=sha256:{}", rng.string(HEX, 64))));
        out.push((
            "hashes",
            format!("256 SHA256:{} dev@laptop (ED25519)", rng.string(B64, 43)),
        ));
        out.push((
            "hashes",
            format!(
                "\"digest\": \"sha256:{}\", \"etag\": \"\\\"{}\\\"\"",
                rng.string(HEX, 64),
                rng.string(HEX, 32)
            ),
        ));
    }
    for _ in 0..8 {
        out.push((
            "ids",
            format!(
                "\"trace_id\": \"{}\", \"span_id\": \"{}\"",
                rng.string(HEX, 32),
                rng.string(HEX, 16)
            ),
        ));
        out.push((
            "ids",
            format!("\"request_id\": \"req_{}\"", rng.string(ALNUM, 24)),
        ));
        out.push((
            "ids",
            format!("\"call_id\": \"call_{}\"", rng.string(ALNUM, 24)),
        ));
        out.push((
            "ids",
            format!(
                "\"id\": \"msg_{}\", \"model\": \"claude-sonnet-4-20250514\"",
                rng.string(ALNUM, 24)
            ),
        ));
        out.push((
            "ids",
            format!("Account: AC{} (Twilio account SID)", rng.string(HEX, 32)),
        ));
        out.push(("ids", format!("\"nonce\": \"{}\"", rng.string(URL, 22))));
        out.push((
            "ids",
            format!(
                "https://api.twilio.com/2010-04-01/Accounts/AC{}/Messages.json",
                rng.string(HEX, 32)
            ),
        ));
    }
    for _ in 0..8 {
        out.push(("words", format!("task-{}", rng.string(LOWER_DIGIT, 24))));
        out.push((
            "words",
            format!(
                "see risk-{} and desk-{}",
                rng.string(LOWER, 20),
                rng.string(LOWER_DIGIT, 22)
            ),
        ));
        out.push((
            "words",
            format!("kiosk-{}-{}", rng.string(LOWER, 8), rng.string(DIGITS, 6)),
        ));
        out.push(("words", format!("ask-{}", rng.string(ALNUM, 26))));
    }
    for _ in 0..8 {
        out.push((
            "public",
            format!(
                "ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAABAQ{} dev@laptop",
                rng.string(B64, 300)
            ),
        ));
        out.push((
            "public",
            format!(
                "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI{} ci@runner",
                rng.string(B64, 43)
            ),
        ));
        out.push((
            "public",
            format!(
                "STRIPE_PUBLISHABLE_KEY={}{}",
                rng.pick(&["pk_live_", "pk_test_"]),
                rng.string(ALNUM, 99)
            ),
        ));
        out.push((
            "public",
            format!("stripe = Stripe('{}{}')", "pk_live_", rng.string(ALNUM, 99)),
        ));
        out.push((
            "public",
            format!(
                "mapboxgl.accessToken = 'pk.eyJ1Ijoi{}.{}';",
                rng.string(URL, 40),
                rng.string(URL, 22)
            ),
        ));
        out.push((
            "public",
            format!(
                "-----BEGIN CERTIFICATE-----\n{}\n{}\n-----END CERTIFICATE-----",
                rng.string(B64, 64),
                rng.string(B64, 64)
            ),
        ));
    }
    for _ in 0..6 {
        out.push((
            "base64",
            format!(
                "\"image\": \"data:image/png;base64,iVBORw0KGgo{}\"",
                rng.string(B64, 200)
            ),
        ));
        let claims = base64url(
            format!(
                "{{\"return_to\":\"/dashboard\",\"n\":{}}}",
                rng.range(1, 999)
            )
            .as_bytes(),
        );
        out.push((
            "base64",
            format!("https://app.example.com/login?state={claims}"),
        ));
        out.push((
            "base64",
            format!("\"thumbnail\": \"{}\"", rng.string(B64, 120)),
        ));
    }
    out
}

/// The whole negative corpus (deterministic).
pub fn all() -> Vec<Negative> {
    let mut rng = Rng::new(0x0DDB_A115_2025);
    let mut out: Vec<Negative> = FIXED
        .iter()
        .map(|(category, text)| Negative {
            category,
            text: text.to_string(),
        })
        .collect();
    out.extend(documented().into_iter().map(|text| Negative {
        category: "documented_examples",
        text,
    }));
    out.extend(
        generated(&mut rng)
            .into_iter()
            .map(|(category, text)| Negative { category, text }),
    );
    out
}
