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
    // Ciphertext made to be committed, and prose around passwords.
    (
        "sealed",
        "spec:\n  encryptedData:\n    password: AgBbkqGdvv6ETeXhq8CfYXMs0AvdaK2QtG/xG3b3ZV6CqBrShUvQljxHe39sL/spVjcbmPgz2l/0J4AaYZtRD4KXPZ70Ci9I3roxPQSCHrgYVAThCcbX7pnm972XzktU7Fi4zIorBYWc8vcKyIEZN3nFYqPBPnM7QDTC29n6YENwKzrm/3fryrz4qhI/Y1bJum0JmceBdQZta2RvEp16gkju6Ywlb4WrLOj5y6qjrNP681hUfokUGHD8Om6TRgmcuIGsf4kBFVdBv09Ke+Awu0NIlb34",
    ),
    (
        "sealed",
        "db_password: ENC[AES256_GCM,data:p673w==,iv:YY=,tag:4Q==,type:str]",
    ),
    ("prose", "--- PASS: TestLogin (0.02s)\npass: 12 tests"),
    (
        "prose",
        "the cache key is 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b",
    ),
    (
        "prose",
        "reset your password 3f9a2c1e-5b7d-4e8f-9a0b-1c2d3e4f5a6b request expired",
    ),
    (
        "prose",
        "the default value is 0123456789abcdef0123 for the seed",
    ),
    (
        "prose",
        "the password field is required; the token is optional",
    ),
    ("commands", "git alias set lg log --oneline"),
    // A service account key's id names the key; the key itself is the PEM.
    (
        "tool_output",
        "  \"private_key_id\": \"4c1f0e9b8a7d6c5b4a39281706f5e4d3c2b1a098\",",
    ),
    (
        "commands",
        "mc alias set local http://127.0.0.1:9000 $MINIO_USER $MINIO_PASSWORD",
    ),
    ("commands", "x = new NetworkCredential(user, password);"),
    ("commands", "query?user=bob&password=&next=/home"),
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
    // Commands with ports, prompts and flags that take no secret.
    (
        "commands",
        "$ docker run -d -p 8080:80 --name web nginx:1.25-alpine",
    ),
    (
        "commands",
        "docker run -d -p 127.0.0.1:5432:5432 -e POSTGRES_PASSWORD_FILE=/run/secrets/pg postgres:16",
    ),
    ("commands", "$ ssh -p 2222 deploy@bastion.example.com"),
    (
        "commands",
        "$ scp -P 2222 build.tar.gz deploy@bastion.example.com:/tmp/",
    ),
    ("commands", "$ mysql -u root -p\nEnter password: "),
    (
        "commands",
        "$ mysql -uroot -p -e \"SELECT 1\"\nEnter password:",
    ),
    (
        "commands",
        "mysql -h db.internal -u app -p shop < schema.sql",
    ),
    ("commands", "$ redis-cli -p 6379 ping\nPONG"),
    (
        "commands",
        "redis-cli -h cache -p 6380 --scan --pattern 'user:*'",
    ),
    (
        "commands",
        "$ psql -h localhost -p 5432 -U postgres -d shop -c '\\dt'",
    ),
    ("commands", "$ unzip -o artifacts.zip -d dist/"),
    ("commands", "$ zip -r site.zip public/ -x '*.map'"),
    ("commands", "$ 7z x release.7z -o./out -y"),
    ("commands", "$ sqlplus / as sysdba"),
    (
        "commands",
        "$ sqlplus /nolog\nSQL> connect / as sysdba\nConnected.",
    ),
    (
        "commands",
        "sqlplus app@//db.example.com:1521/ORCLPDB1\nEnter password:",
    ),
    (
        "commands",
        "$ htpasswd -c .htpasswd admin\nNew password: \nRe-type new password: \nAdding password for user admin",
    ),
    ("commands", "$ fly secrets set LOG_LEVEL=debug"),
    (
        "commands",
        "fly secrets set NODE_ENV=production -a acme-api",
    ),
    (
        "commands",
        "$ fly secrets list\nNAME        \tDIGEST          \tCREATED AT\nDATABASE_URL\t24b5a1f3c9d8e7a6\t2m ago",
    ),
    (
        "commands",
        "$ heroku config:set WEB_CONCURRENCY=3 -a acme-web",
    ),
    (
        "commands",
        "heroku config:set JWT_SECRET=$(openssl rand -hex 32)",
    ),
    (
        "commands",
        "SECRET_KEY_BASE=$(bin/rails secret) bin/rails assets:precompile",
    ),
    (
        "commands",
        "export DB_PASSWORD=$(op read op://prod/db/password)",
    ),
    ("commands", "gh secret set NPM_TOKEN < token.txt"),
    (
        "commands",
        "gh secret set SIGNING_KEY --env production < signing.key",
    ),
    (
        "commands",
        "$ gh secret list\nNAME          UPDATED\nNPM_TOKEN     about 2 days ago\nDB_PASSWORD   about 1 month ago",
    ),
    (
        "commands",
        "$ curl -b cookies.txt -c cookies.txt https://app.example.com/login",
    ),
    (
        "commands",
        "curl --cookie-jar jar.txt --cookie jar.txt -L https://example.com/",
    ),
    (
        "commands",
        "$ cat config/master.key\ncat: config/master.key: No such file or directory",
    ),
    (
        "commands",
        "{\"type\":\"function_call_output\",\"call_id\":\"call_1\",\"output\":\"Exit code: 1\\nWall time: 0.0 seconds\\nOutput:\\ncat: config/credentials/production.key: No such file or directory\\n\"}",
    ),
    ("commands", "$ openssl rand -hex 16\n$ "),
    (
        "commands",
        "openssl rand -hex 32 > config/master.key && chmod 600 config/master.key",
    ),
    (
        "commands",
        "$ php artisan key:generate\n\n   INFO  Application key set successfully.",
    ),
    (
        "commands",
        "$ bin/rails credentials:edit\nFile encrypted and saved.",
    ),
    (
        "commands",
        "wg genkey | tee privatekey | wg pubkey > publickey",
    ),
    (
        "commands",
        "$ cat ~/.docker/ci-pass.txt | docker login --username ci --password-stdin ghcr.io\nLogin Succeeded",
    ),
    (
        "commands",
        "aws ecr get-login-password --region us-east-1 | docker login --username AWS --password-stdin 123456789012.dkr.ecr.us-east-1.amazonaws.com",
    ),
    (
        "commands",
        "mongosh -u admin -p --authenticationDatabase admin",
    ),
    (
        "commands",
        "ldapsearch -x -W -D \"cn=admin,dc=example,dc=com\" -b \"dc=example,dc=com\"",
    ),
    (
        "commands",
        "sqlcmd -S localhost -U sa -Q \"SELECT @@VERSION\"",
    ),
    (
        "commands",
        "keytool -list -keystore keystore.jks\nEnter keystore password:",
    ),
    (
        "commands",
        "keytool -importcert -file ca.crt -keystore truststore.jks -storepass:env STOREPASS -noprompt",
    ),
    (
        "commands",
        "keytool -genkeypair -alias app -keystore app.jks -storepass:file /run/secrets/storepass",
    ),
    ("commands", "sshpass -f ~/.ssh/pass.txt ssh deploy@10.0.3.7"),
    (
        "commands",
        "SSHPASS=\"$DEPLOY_PASS\" sshpass -e ssh deploy@10.0.3.7 uptime",
    ),
    (
        "commands",
        "redis-cli -a \"$REDIS_PASSWORD\" --no-auth-warning ping",
    ),
    ("commands", "smbclient -L //fileserver -N"),
    (
        "commands",
        "smbclient //fileserver/share -U jdoe\nPassword for [CORP\\jdoe]:",
    ),
    (
        "commands",
        "wget --ask-password --user=deploy https://repo.example.com/app.tar.gz",
    ),
    (
        "commands",
        "curl -u admin https://jenkins.example.com/api/json\nEnter host password for user 'admin':",
    ),
    (
        "commands",
        "curl -u \"$NEXUS_USER:$NEXUS_PASS\" https://nexus.example.com/service/rest/v1/status",
    ),
    ("commands", "ngrok config add-authtoken $NGROK_AUTHTOKEN"),
    (
        "commands",
        "$ ngrok http 8080\nSession Status                online\nForwarding                    https://7c1e-198-51-100-23.ngrok-free.app -> http://localhost:8080",
    ),
    (
        "commands",
        "cast send $TOKEN \"transfer(address,uint256)\" $TO 1000 --rpc-url $RPC_URL --private-key $PRIVATE_KEY",
    ),
    (
        "commands",
        "forge script script/Deploy.s.sol --rpc-url sepolia --broadcast --account deployer --sender $DEPLOYER",
    ),
    ("commands", "anvil --mnemonic \"$MNEMONIC\" --port 8545"),
    ("commands", "htpasswd -v .htpasswd admin"),
    // Session cookies that hold nothing, and other cookies.
    ("cookies", "> Cookie: theme=dark; lang=en"),
    ("cookies", "Cookie: XSRF-TOKEN=dev; locale=en-US"),
    (
        "cookies",
        "Set-Cookie: locale=en-US; Path=/; Max-Age=31536000; SameSite=Lax",
    ),
    (
        "cookies",
        "< Set-Cookie: sessionid=\"\"; expires=Thu, 01 Jan 1970 00:00:00 GMT; Max-Age=0; Path=/",
    ),
    (
        "cookies",
        "Set-Cookie: PHPSESSID=deleted; expires=Thu, 01-Jan-1970 00:00:01 GMT; path=/",
    ),
    (
        "cookies",
        "The default cookie name is connect.sid; set `name` to change it.",
    ),
    (
        "cookies",
        "Tomcat sets a JSESSIONID cookie on the first request.",
    ),
    ("cookies", "SESSION_COOKIE_NAME = \"sessionid\""),
    (
        "cookies",
        "cookies = {\"consent\": \"yes\", \"theme\": \"dark\"}",
    ),
    (
        "cookies",
        "Cookie: cookieconsent_status=dismiss; sidebar_collapsed=false",
    ),
    // Dotted identifiers and base64-ish words.
    ("code", "Module.Submodule.function_name"),
    ("code", "MyApp.Accounts.UserToken.build_session_token(user)"),
    (
        "code",
        "at java.base/java.util.concurrent.ThreadPoolExecutor.runWorker(ThreadPoolExecutor.java:1136)",
    ),
    (
        "code",
        "Microsoft.Extensions.DependencyInjection.ServiceCollectionExtensions",
    ),
    ("code", "$ echo MTIzNDU2 | base64 -d\n123456"),
    ("code", "\"cursor\": \"MTIzNDU2\""),
    ("code", "MTAwMA== is the base64 of 1000."),
    ("code", "<password></password>"),
    ("code", "<password/>"),
    ("code", "<password>${DB_PASSWORD}</password>"),
    ("code", "<password>${env.NEXUS_PASSWORD}</password>"),
    (
        "code",
        "<server>\n  <id>nexus-releases</id>\n  <username>${env.NEXUS_USER}</username>\n  <password>${env.NEXUS_PASSWORD}</password>\n</server>",
    ),
    ("code", "<db.password>${env.DB_PASSWORD}</db.password>"),
    ("code", "<add key=\"DbPassword\" value=\"\" />"),
    (
        "code",
        "<property name=\"db.password\" value=\"${db.password}\"/>",
    ),
    (
        "code",
        "<property>\n  <name>fs.s3a.aws.credentials.provider</name>\n  <value>com.amazonaws.auth.InstanceProfileCredentialsProvider</value>\n</property>",
    ),
    (
        "code",
        "- name: DB_PASSWORD\n  valueFrom:\n    secretKeyRef:\n      name: db-credentials\n      key: password",
    ),
    (
        "code",
        "- name: DB_HOST\n  value: postgres.prod.svc.cluster.local",
    ),
    ("code", "{\"name\": \"LOG_LEVEL\", \"value\": \"info\"}"),
    (
        "code",
        "\"secrets\": [{\"name\": \"DB_PASSWORD\", \"valueFrom\": \"arn:aws:ssm:us-east-1:123456789012:parameter/prod/db/password\"}]",
    ),
    (
        "code",
        "{\"Name\": \"/prod/db/host\", \"Type\": \"String\", \"Value\": \"db.internal\"}",
    ),
    ("code", "requirepass \"\"\n# requirepass foobared"),
    (
        "code",
        "dsn := fmt.Sprintf(\"%s:%s@tcp(%s:3306)/%s?parseTime=true\", os.Getenv(\"DB_USER\"), os.Getenv(\"DB_PASS\"), host, name)",
    ),
    (
        "code",
        "dsn := os.Getenv(\"DB_USER\") + \":\" + os.Getenv(\"DB_PASS\") + \"@tcp(db:3306)/app\"",
    ),
    (
        "code",
        "cfg := mysql.Config{User: \"app\", Passwd: os.Getenv(\"DB_PASS\"), Net: \"tcp\", Addr: \"db:3306\", DBName: \"shop\"}",
    ),
    (
        "code",
        "db, err := sql.Open(\"mysql\", \"root@tcp(127.0.0.1:3306)/test\")",
    ),
    (
        "code",
        "MYSQL_DSN=app@unix(/var/run/mysqld/mysqld.sock)/shop",
    ),
    (
        "code",
        "cat > ~/.netrc <<EOF\nmachine github.com login x-access-token password ${GITHUB_TOKEN}\nEOF",
    ),
    (
        "code",
        "echo \"machine api.example.com login ci password $API_TOKEN\" > ~/.netrc",
    ),
    ("code", "config.require_master_key = true"),
    ("code", "token = secrets.token_urlsafe(32)"),
    ("code", "APP_KEY="),
    ("code", "PRIVATE_KEY="),
    // Connection strings without credentials.
    ("urls", "jdbc:oracle:thin:@//db:1521/ORCL"),
    (
        "urls",
        "spring.datasource.url=jdbc:oracle:thin:@db01.internal:1521:ORCL",
    ),
    (
        "urls",
        "jdbc:oracle:thin:@(DESCRIPTION=(ADDRESS=(PROTOCOL=TCP)(HOST=db)(PORT=1521))(CONNECT_DATA=(SERVICE_NAME=ORCLPDB1)))",
    ),
    (
        "urls",
        "spring.datasource.url=jdbc:mysql://db:3306/shop?useSSL=false&serverTimezone=UTC",
    ),
    ("urls", "rman target / nocatalog"),
    // SQL and docs about passwords.
    (
        "prose",
        "The IDENTIFIED BY PASSWORD clause is deprecated; use IDENTIFIED WITH auth_plugin AS 'hash' instead.",
    ),
    (
        "prose",
        "mysql> CREATE USER 'app'@'%' IDENTIFIED BY '<password>';",
    ),
    (
        "code",
        "CREATE USER 'app'@'localhost' IDENTIFIED WITH auth_socket;",
    ),
    ("code", "ALTER ROLE app WITH PASSWORD NULL;"),
    (
        "code",
        "shop=# \\password app\nEnter new password for user \"app\": \nEnter it again: ",
    ),
    ("code", "CREATE ROLE app LOGIN PASSWORD :'app_password';"),
    (
        "prose",
        "Run `ngrok config add-authtoken <token>` with the token from your dashboard.",
    ),
    (
        "prose",
        "Never pass --private-key on the command line; use a keystore with --account.",
    ),
    (
        "prose",
        "Use `docker login --password-stdin` so the password stays out of shell history.",
    ),
    (
        "prose",
        "The wallet's mnemonic is twelve words; store it offline.",
    ),
    // Tool output around key material without any.
    (
        "tool_output",
        "Cache not found for input keys: Linux-pip-, Linux-",
    ),
    (
        "tool_output",
        "Post job cleanup.\nCache hit occurred on the primary key, not saving cache.",
    ),
    (
        "public",
        "      - uses: actions/cache@v4\n        with:\n          path: ~/.npm\n          key: ${{ runner.os }}-npm-${{ hashFiles('**/package-lock.json') }}\n          restore-keys: |\n            ${{ runner.os }}-npm-",
    ),
    (
        "public",
        "bytes32 internal constant IMPLEMENTATION_SLOT = 0x360894a13ba1a3210667c828492db98dca3e2076cc3735a920a3ca505d382bbc;",
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

fn age_public(rng: &mut Rng) -> String {
    format!("age1{}", rng.string(&BECH32.to_lowercase(), 58))
}

fn eth_address(rng: &mut Rng) -> String {
    format!("0x{}", rng.string("0123456789abcdefABCDEF", 40))
}

/// Public keys, cache keys, DSNs and chain data: long hex and bech32 that
/// are not secret.
fn generated_public(rng: &mut Rng) -> Vec<(&'static str, String)> {
    let mut out = Vec::new();
    for i in 0..3 {
        let (a, b) = (age_public(rng), age_public(rng));
        out.push((
            "public",
            format!("$ age -r {a} -o secrets.tar.age secrets.tar"),
        ));
        out.push((
            "public",
            format!(
                "sops:\n    age:\n        - recipient: {a}\n          enc: |\n            -----BEGIN AGE ENCRYPTED FILE-----\n            {}\n            {}\n            -----END AGE ENCRYPTED FILE-----\n    lastmodified: \"2025-03-04T10:22:31Z\"",
                rng.string(B64, 64),
                rng.string(B64, 40)
            ),
        ));
        out.push((
            "public",
            match i % 3 {
                0 => format!("$ age-keygen -o key.txt\nPublic key: {a}"),
                1 => format!("$ age-keygen -y ~/.config/sops/age/keys.txt\n{a}"),
                _ => format!("# public key: {a}"),
            },
        ));
        out.push((
            "public",
            format!(
                "# .sops.yaml\ncreation_rules:\n  - path_regex: secrets/.*\\.yaml$\n    age: >-\n      {a},\n      {b}\n"
            ),
        ));
        out.push(("public", format!("SOPS_AGE_RECIPIENTS={a}")));
    }
    for _ in 0..3 {
        out.push((
            "ci_cache",
            format!(
                "Cache restored from key: node-cache-Linux-x64-npm-{}",
                rng.string(HEX, 64)
            ),
        ));
        out.push((
            "ci_cache",
            format!(
                "Cache saved successfully\nCache saved with key: Linux-cargo-{}",
                rng.string(HEX, 64)
            ),
        ));
        out.push((
            "ci_cache",
            format!(
                "2025-03-04T10:22:31.512Z DEBUG cache hit key=deps:{} size=48213",
                rng.string(HEX, 40)
            ),
        ));
        out.push((
            "ci_cache",
            format!(
                "INFO remote cache: GET key=namespace:{} status=200 bytes=1832211",
                rng.string(HEX, 64)
            ),
        ));
        out.push((
            "ci_cache",
            format!(
                "Run actions/cache@v4\n  with:\n    path: ~/.cache/pip\n    key: Linux-pip-{}\n    restore-keys: Linux-pip-\nCache not found for input keys: Linux-pip-{}",
                rng.string(HEX, 64),
                rng.string(HEX, 64)
            ),
        ));
        out.push((
            "ci_cache",
            format!(
                "Checking cache for main-protected-{}...\nSuccessfully extracted cache",
                rng.string(HEX, 40)
            ),
        ));
    }
    for _ in 0..4 {
        let key = rng.string(HEX, 32);
        out.push((
            "public",
            format!(
                "SENTRY_DSN=https://{key}@o{}.ingest.sentry.io/{}",
                rng.string(DIGITS, 6),
                rng.string(DIGITS, 7)
            ),
        ));
    }
    for i in 0..3 {
        let key = rng.string(HEX, 32);
        let (org, project) = (rng.string(DIGITS, 7), rng.string(DIGITS, 16));
        out.push((
            "public",
            match i % 3 {
                0 => format!(
                    "sentry:\n  dsn: \"https://{key}@o1.ingest.us.sentry.io/2\"\n  environment: production"
                ),
                1 => format!(
                    "Sentry.init({{\n  dsn: \"https://{key}@o{org}.ingest.us.sentry.io/{project}\",\n  tracesSampleRate: 1.0,\n}});"
                ),
                _ => format!(
                    "sentry_sdk.init(dsn=\"https://{key}@o{org}.ingest.de.sentry.io/{project}\", traces_sample_rate=0.2)"
                ),
            },
        ));
        out.push((
            "public",
            format!("NEXT_PUBLIC_SENTRY_DSN=https://{key}@o{org}.ingest.sentry.io/{project}"),
        ));
    }
    for _ in 0..3 {
        let (tx, block) = (rng.string(HEX, 64), rng.string(HEX, 64));
        let (from, to) = (eth_address(rng), eth_address(rng));
        out.push((
            "chain",
            format!(
                "$ cast receipt 0x{tx}\n\nblockHash            0x{block}\nblockNumber          {}\ncontractAddress      \ncumulativeGasUsed    {}\neffectiveGasPrice    {}\nfrom                 {from}\ngasUsed              21000\nstatus               1 (success)\ntransactionHash      0x{tx}\ntransactionIndex     {}\nto                   {to}",
                rng.range(5_000_000, 20_000_000),
                rng.range(100_000, 9_000_000),
                rng.range(1_000_000_000, 90_000_000_000),
                rng.range(0, 200)
            ),
        ));
        out.push((
            "chain",
            format!(
                "$ cast tx 0x{tx}\n\nblockHash            0x{block}\nfrom                 {from}\nhash                 0x{tx}\ninput                0xa9059cbb000000000000000000000000{}\nnonce                {}\nto                   {to}\nvalue                0",
                rng.string(HEX, 40),
                rng.range(0, 900)
            ),
        ));
        out.push((
            "chain",
            format!(
                "##### sepolia\n✅  [Success] Hash: 0x{tx}\nContract Address: {to}\nBlock: {}\nPaid: 0.000123 ETH (412331 gas * 0.3 gwei)",
                rng.range(5_000_000, 9_000_000)
            ),
        ));
        out.push(("chain", format!("https://sepolia.etherscan.io/tx/0x{tx}")));
        out.push((
            "chain",
            format!(
                "{{\"transactionHash\": \"0x{tx}\", \"blockHash\": \"0x{block}\", \"from\": \"{from}\", \"to\": \"{to}\", \"status\": \"0x1\"}}"
            ),
        ));
        out.push(("chain", format!("address public constant TREASURY = {to};")));
    }
    for _ in 0..2 {
        let public = base64(&(0..32).map(|_| rng.next() as u8).collect::<Vec<u8>>());
        out.push((
            "public",
            format!(
                "$ sudo wg show\ninterface: wg0\n  public key: {public}\n  private key: (hidden)\n  listening port: 51820"
            ),
        ));
        let peer = base64(&(0..32).map(|_| rng.next() as u8).collect::<Vec<u8>>());
        out.push((
            "public",
            format!(
                "[Peer]\nPublicKey = {peer}\nAllowedIPs = 10.8.0.2/32\nEndpoint = vpn.example.com:51820"
            ),
        ));
    }
    // Secret-fetching commands that failed, in every transcript shape.
    let failed: &[(&str, &str)] = &[
        (
            "cat config/master.key",
            "cat: config/master.key: No such file or directory",
        ),
        (
            "op read op://Production/Postgres/password",
            "[ERROR] 2025/03/04 10:22:31 could not read secret 'op://Production/Postgres/password': error initializing client: account is not signed in",
        ),
        (
            "vault kv get -field=password secret/prod/db",
            "No value found at secret/data/prod/db",
        ),
        (
            "kubectl get secret db-credentials -o jsonpath='{.data.password}' | base64 -d",
            "Error from server (NotFound): secrets \"db-credentials\" not found",
        ),
        ("printenv DB_PASSWORD", ""),
        (
            "gcloud secrets versions access latest --secret=webhook-signing-key",
            "ERROR: (gcloud.secrets.versions.access) NOT_FOUND: Secret [projects/123456789012/secrets/webhook-signing-key] not found or has no versions.",
        ),
        (
            "php artisan key:generate --show",
            "Could not open input file: artisan",
        ),
    ];
    for (i, (cmd, output)) in failed.iter().enumerate() {
        for k in 0..2 {
            out.push(("commands", transcript(i + k * 3, cmd, output, 1)));
        }
    }
    // Commands that print hex and base64 that is not secret.
    for i in 0..14 {
        let (cmd, output) = match i % 7 {
            0 => ("git rev-parse HEAD".to_string(), rng.string(HEX, 40)),
            1 => (
                "sha256sum dist/app.tar.gz".to_string(),
                format!("{}  dist/app.tar.gz", rng.string(HEX, 64)),
            ),
            2 => (
                "md5sum package-lock.json".to_string(),
                format!("{}  package-lock.json", rng.string(HEX, 32)),
            ),
            3 => ("git log -1 --format=%H".to_string(), rng.string(HEX, 40)),
            4 => (
                "docker inspect --format '{{.Id}}' acme/api:latest".to_string(),
                format!("sha256:{}", rng.string(HEX, 64)),
            ),
            5 => (
                "npm view lodash dist.shasum".to_string(),
                rng.string(HEX, 40),
            ),
            _ => (
                "openssl dgst -sha256 -binary dist/app.js | base64".to_string(),
                base64(&(0..32).map(|_| rng.next() as u8).collect::<Vec<u8>>()),
            ),
        };
        out.push(("tool_output", transcript(i * 2, &cmd, &output, 0)));
    }
    for _ in 0..3 {
        let n = rng.range(1_000_000, 999_999_999);
        out.push((
            "ids",
            format!(
                "\"node_id\": \"{}\", \"full_name\": \"acme/api\"",
                base64(format!("010:Repository{n}").as_bytes())
            ),
        ));
        out.push((
            "ids",
            format!(
                "\"login\": \"octocat\", \"node_id\": \"{}\"",
                base64(format!("04:User{n}").as_bytes())
            ),
        ));
        let id = format!("1{}", rng.string(DIGITS, 18));
        out.push((
            "ids",
            format!("{{\"id\": \"{id}\", \"username\": \"acme-helper\", \"bot\": true}}"),
        ));
        out.push((
            "cookies",
            format!(
                "Cookie: _ga=GA1.1.{}.{}; _gid=GA1.2.{}.{}",
                rng.string(DIGITS, 10),
                rng.string(DIGITS, 10),
                rng.string(DIGITS, 9),
                rng.string(DIGITS, 10)
            ),
        ));
    }
    out
}

/// Look-alikes of the key-material shapes: a device's FCM registration
/// token, short app ids, a database primary key, Python format fields, a
/// sentence about seed words, a token count.
fn key_material_lookalikes(rng: &mut Rng) -> Vec<(&'static str, String)> {
    vec![
        (
            "tool_output",
            format!(
                "{{\"to\": \"{}:APA91b{}\", \"notification\": {{\"title\": \"Build done\"}}}}",
                rng.string(URL, 11),
                rng.string(URL, 134)
            ),
        ),
        (
            "urls",
            format!(
                "https://graph.facebook.com/oauth?appid={}&v=18",
                rng.string(DIGITS, 15)
            ),
        ),
        (
            "code",
            format!("wx.config({{ appid: 'wx{}' }})", rng.string(HEX, 16)),
        ),
        (
            "code",
            "id = models.BigAutoField(primary_key=True)".to_string(),
        ),
        (
            "code",
            "primary_key: user_id\nforeign_key: account_id".to_string(),
        ),
        (
            "code",
            "DSN = 'host=%(db_host)s password=%(db_password)s'".to_string(),
        ),
        (
            "prose",
            "the seed words are on paper in the office safe: ask Dana".to_string(),
        ),
        (
            "prose",
            "Generated token usage report for user alice (4096 tokens)".to_string(),
        ),
        (
            "code",
            "key = settings.get_api_key(\"default\")\nrng = np.random.default_rng(seed=42)"
                .to_string(),
        ),
        (
            "tool_output",
            "Using random seed: 1234567 (set --seed to reproduce)".to_string(),
        ),
        (
            "commands",
            "net user svc_backup /delete\nnet user alice * /domain\nthe net user count dropped, again".to_string(),
        ),
        (
            "urls",
            "https://app.acme.io/callback?code=200&state=ok\nGET /verify?code=AB12CD".to_string(),
        ),
        (
            "prose",
            "I set LOG_LEVEL to debug and the retry token count to 3".to_string(),
        ),
        (
            "code",
            format!(
                "datadogRum.init({{ clientToken: 'pub{}', site: 'datadoghq.eu' }})",
                rng.string(HEX, 32)
            ),
        ),
        (
            "tool_output",
            "$ grep -n port /etc/redis/redis.conf\n98:port 6379\n".to_string(),
        ),
        (
            "code",
            "enc = cipher.encrypt(data)\nencrypt = true\nDJANGO_SECRET_KEY=$(cat /run/secrets/django)"
                .to_string(),
        ),
        (
            "tool_output",
            format!(
                "$ wg genkey | tee priv | wg pubkey > pub; cat priv pub\n[REDACTED_SECRET]\n{}",
                base64(&(0..32).map(|_| rng.below(256) as u8).collect::<Vec<u8>>())
            ),
        ),
        (
            "tool_output",
            "id,email,password_changed_at,token_count\n17,ops@acme.io,2024-05-01T10:00:00Z,4096\n"
                .to_string(),
        ),
    ]
}

/// The whole negative corpus (deterministic).
/// Look-alikes of what the named-secret rules take: public site keys, ARNs,
/// a password said to be elsewhere, variables, short byte arrays, commits.
fn named_lookalikes(rng: &mut Rng) -> Vec<(&'static str, String)> {
    let bytes: Vec<String> = (0..32).map(|_| rng.below(256).to_string()).collect();
    vec![
        (
            "public",
            format!("NEXT_PUBLIC_RECAPTCHA_SITE_KEY=6L{}", rng.string(URL, 38)),
        ),
        (
            "public",
            format!("TURNSTILE_SITE_KEY: 0x4AAAAAAA{}", rng.string(ALNUM, 14)),
        ),
        (
            "secret_ref",
            format!(
                "arn:aws:secretsmanager:eu-west-1:123456789012:secret:prod/api/stripe-{}",
                rng.string(ALNUM, 6)
            ),
        ),
        (
            "prose",
            "the password for the admin account is stored in 1Password".to_string(),
        ),
        (
            "prose",
            "importprivkey needs the WIF string and a label".to_string(),
        ),
        (
            "code",
            "const token = jwt.sign(payload, process.env.JWT_SECRET, { expiresIn: '1h' });"
                .to_string(),
        ),
        (
            "code",
            "variable \"region\" {\n  type    = string\n  default = \"eu-west-1\"\n}".to_string(),
        ),
        (
            "code",
            "variable \"db_password\" {\n  type      = string\n  sensitive = true\n}".to_string(),
        ),
        (
            "public",
            format!(
                "solana-keygen pubkey ~/.config/solana/id.json\n[{}]",
                bytes.join(",")
            ),
        ),
        (
            "digest",
            format!(
                "{}\n\nthat's the commit that broke the token refresh",
                rng.string(HEX, 40)
            ),
        ),
        ("prose", "login is required / see the wiki".to_string()),
        ("prose", "Das Passwort steht im Tresor, nicht im Repo.".to_string()),
        ("prose", "La contraseña debe tener al menos 12 caracteres y 1 número.".to_string()),
        ("prose", "パスワードは 1Password に保存してあります".to_string()),
        ("prose", "the prod password is in 1Password under 'Prod DB'".to_string()),
        ("prose", "reset the password for user-42 in eu-west-1 before noon".to_string()),
        ("prose", "password hashing uses Argon2id(m=65536,t=3,p=4) since v2.1".to_string()),
        ("placeholders", "      POSTGRES_PASSWORD: ${POSTGRES_PASSWORD:?set it in .env}".to_string()),
        ("prose", "La chiave API si trova nel pannello di controllo.".to_string()),
        (
            "public",
            "const firebaseConfig = {\n  apiKey: \"AIzaSyD4x9QmK2pL7vN3bR8tW1cY6hJ0fG5sE2a\",\n  authDomain: \"shop-app.firebaseapp.com\",\n};".to_string(),
        ),
        (
            "code",
            "password = keyring.get_password(\"acme\", user)\nif password is None:\n    password = getpass.getpass()".to_string(),
        ),
        ("code", "const port = process.env.PORT || '8080';".to_string()),
        (
            "digest",
            "acme-agent[812]: loaded API key (fingerprint SHA256:q3kU2xVb8Jm1Zr7Wc5Np0Ty4Ls6Hd9Ge2Ka8Fo1Qw)".to_string(),
        ),
        (
            "public",
            "NEXT_PUBLIC_SUPABASE_ANON_KEY=eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJyb2xlIjoiYW5vbiJ9.c2lnbmF0dXJlLWZvci1hbm9u".to_string(),
        ),
        ("prose", "the API token expires at: 2025-12-01T00:00:00Z".to_string()),
        ("prose", "the login: page is at /admin / see docs".to_string()),
        (
            "public",
            "// Algolia search-only key: public by design\nconst client = algoliasearch('Q2W3E4R5T6', '0123456789abcdef0123456789abcdef');".to_string(),
        ),
        (
            "secret_ref",
            "gcloud run deploy api --set-secrets=DB_PASSWORD=db-password:latest,API_KEY=api-key:3".to_string(),
        ),
        ("prose", "secret management lives in Vault; see docs/secrets.md".to_string()),
        ("prose", "docker login ghcr.io -u octocat --password-stdin < token.txt".to_string()),
        ("urls", "curl https://api.github.com/repos/acme/app/hooks/12345678/pings".to_string()),
        (
            "public",
            "Phantom address: 7xKXtg2CW87d97TXJSDpbD5jBkheTqA83TZRuJosgAsU".to_string(),
        ),
        ("commands", "aws ecr get-login-password --region eu-central-1 | docker login --username AWS --password-stdin 1234.dkr.ecr.eu-central-1.amazonaws.com".to_string()),
        ("code", "ENV[\"LOG_LEVEL\"] ||= \"debug\"".to_string()),
        ("code", "<key>CFBundleIdentifier</key>\n<string>io.acme.app</string>".to_string()),
        ("urls", "GET https://api.github.com/repos/acme/app/hooks/123456789".to_string()),
        ("code", "expect(redact('my password is ')).toBe('my password is ');".to_string()),
        (
            "prose",
            "The Heroku app key is in the dashboard, not in the repo.".to_string(),
        ),
    ]
}

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
    out.extend(
        generated_public(&mut rng)
            .into_iter()
            .chain(named_lookalikes(&mut rng))
            .chain(key_material_lookalikes(&mut rng))
            .chain(printed_and_public_lookalikes(&mut rng))
            .chain(call_and_id_lookalikes(&mut rng))
            .chain(fallback_and_label_lookalikes(&mut rng))
            .chain(table_and_call_lookalikes(&mut rng))
            .chain(arn_and_search_key_lookalikes(&mut rng))
            .chain(here_string_and_reply_lookalikes(&mut rng))
            .map(|(category, text)| Negative { category, text }),
    );
    out
}

/// Look-alikes of the printed, tabulated and public values: a non-secret
/// `jq` field, a table row that is no secret's, public client keys, ARNs, a
/// Kubernetes `env` value after a `secretKeyRef`, a certificate in base64,
/// base64 that spells a foreign word for "password" by chance.
fn printed_and_public_lookalikes(rng: &mut Rng) -> Vec<(&'static str, String)> {
    let cert = base64(
        format!(
            "-----BEGIN CERTIFICATE-----\nMIIB{}\n-----END CERTIFICATE-----\n",
            rng.string(B64, 120)
        )
        .as_bytes(),
    );
    vec![
        (
            "tool_output",
            format!("$ gh api repos/o/r | jq .node_id\n\"R_{}\"\n", rng.string(ALNUM, 18)),
        ),
        (
            "tool_output",
            "$ pulumi config\nKEY            VALUE\naws:region     us-west-2\napi:dbPassword [secret]\npassword       changed\nPASSWORD_MIN_LENGTH     12\n".to_string(),
        ),
        (
            "public_keys",
            format!(
                "std::env::set_var(\"BRAINTREE_TOKENIZATION_KEY\", \"production_{}_{}\");",
                rng.string(LOWER_DIGIT, 8),
                rng.string(LOWER_DIGIT, 16)
            ),
        ),
        (
            "public_keys",
            format!("NEXT_PUBLIC_POSTHOG_KEY=phc_{}", rng.string(ALNUM, 43)),
        ),
        (
            "placeholders",
            "OPENAI_API_KEY=hunter2-not-real".to_string(),
        ),
        (
            "identifiers",
            format!(
                "kms_key = \"arn:aws:kms:us-east-1:{}:key/{}\"",
                rng.string(DIGITS, 12),
                uuid(rng)
            ),
        ),
        (
            "kubernetes",
            format!(
                "    env:\n    - name: DB_PASSWORD\n      valueFrom:\n        secretKeyRef: {{name: payments-db, key: password}}\n    - name: TRACE_SAMPLER_ID\n      value: {}\n",
                uuid(rng)
            ),
        ),
        (
            "tool_output",
            format!(
                "$ kubectl get secret payments-tls -o jsonpath=\"{{.data['tls\\.crt']}}\"\n{cert}\n"
            ),
        ),
        (
            "base64",
            format!("data: {}ZhSENhawp2eW5R{}", rng.string(B64, 40), rng.string(B64, 40)),
        ),
        // A secret's name with blanks and nothing after it (Markdown's hard
        // line break) is no table row.
        ("prose", "Token  \nrefresh it tomorrow\n".to_string()),
    ]
}

/// Look-alikes of the call, flag and id shapes: a PDO DSN whose host starts
/// with `mysql-`, credentials read from the environment, a search-only
/// Algolia key said so, ids after a printed token, `%prompt` in
/// ipsec.secrets, `token-` and `A3-` in ordinary words.
fn call_and_id_lookalikes(rng: &mut Rng) -> Vec<(&'static str, String)> {
    vec![
        (
            "code",
            "$pdo = new PDO('mysql:host=mysql-primary.data.svc;dbname=analytics', $user, getenv('DB_PASSWORD'));".to_string(),
        ),
        (
            "code",
            "  auth: { user: 'ci@mg.example.com', pass: process.env.SMTP_PASS },".to_string(),
        ),
        (
            "code",
            "  provider :github, ENV[\"GITHUB_KEY\"], ENV[\"GITHUB_SECRET\"]".to_string(),
        ),
        (
            "public_keys",
            format!(
                "// search-only key, safe in the browser\nconst client = algoliasearch(\"{}\", \"{}\");",
                rng.string(UPPER_DIGIT, 10),
                rng.string(HEX, 32)
            ),
        ),

        ("config", "%any : PSK %prompt".to_string()),
        (
            "prose",
            "refresh-token-ab12c:xyz expired; token-limit: 300 per run. paper size A3-LARGE-FORMAT-SPEC".to_string(),
        ),
        (
            "prose",
            "the api key rotation runbook is in docs/keys.md; use api key from 1password for the sandbox".to_string(),
        ),
        ("prose", "irc: oauth:required in the PASS line, see docs".to_string()),
        (
            "test_output",
            "user: 3 passed, pass: 12 ok".to_string(),
        ),
    ]
}

/// What the fallback, hash, label and secret-file rules must leave alone.
fn fallback_and_label_lookalikes(rng: &mut Rng) -> Vec<(&'static str, String)> {
    vec![
        (
            "code",
            "LOG_LEVEL = os.environ.get(\"LOG_LEVEL\", \"debug\")".to_string(),
        ),
        (
            "code",
            "let region = env::var(\"AWS_REGION\").unwrap_or(\"eu-west-1\".into());".to_string(),
        ),
        ("code", "token = ENV.fetch(\"GITHUB_TOKEN\")".to_string()),
        (
            "code",
            "let name = String::from(\"hello world\");".to_string(),
        ),
        (
            "code",
            "mac = hmac.new(key, msg, hashlib.sha256)".to_string(),
        ),
        (
            "shell",
            "for f in $1$2; do echo $5$ per seat; done".to_string(),
        ),
        (
            "tool_output",
            "tcp6       0      0 :::8080                 :::*                    LISTEN"
                .to_string(),
        ),
        (
            "tool_output",
            format!(
                "Run actions/cache@v4\nCache saved with key: node-modules-Linux-{}",
                rng.string(HEX, 64)
            ),
        ),
        ("tool_output", format!("Accessor ID  = {}", uuid(rng))),
        (
            "tool_output",
            format!("$ cat publickey\n{}=", rng.string(B64, 43)),
        ),
        (
            "tool_output",
            format!("$ cat README.md\n{}", rng.string(HEX, 64)),
        ),
        ("shell", "echo 'hello world' > notes.txt".to_string()),
        (
            "shell",
            "bundle config set --local path vendor/bundle".to_string(),
        ),
        (
            "config",
            "BUNDLE_PATH: \"vendor/bundle\"\nBUNDLE_JOBS: \"4\"".to_string(),
        ),
        ("config", "api_secret = apiSecretFromVault".to_string()),
        ("prose", "we use Kubernetes as the platform".to_string()),
        (
            "prose",
            "Pushed the fix, here it is: 3f786850e387550fdab836ed7e6dc881de23001b".to_string(),
        ),
        (
            "prose",
            "the cache key is ".to_string() + &rng.string(HEX, 32),
        ),
        (
            "public_keys",
            format!(
                "await reg.pushManager.subscribe({{ userVisibleOnly: true, applicationServerKey: 'B{}' }});",
                rng.string(URL, 86)
            ),
        ),
        ("config", "routing_key = orders.created".to_string()),
        // Found in review: a port and a query before an `@`, digests used as
        // keys, a render pass, a ternary, Python's hmac.digest(key, msg).
        (
            "tool_output",
            "curl http://localhost:3000?email=alice@example.com".to_string(),
        ),
        ("prose", format!("use {} as the idempotency key", uuid(rng))),
        (
            "prose",
            format!("use {} as the cache key", rng.string(HEX, 32)),
        ),
        (
            "tool_output",
            "| Second Pass | Completed |\nRender Pass: GBuffer".to_string(),
        ),
        (
            "code",
            "$s = getenv('DB_PASSWORD') ? 'present' : 'missing';".to_string(),
        ),
        (
            "code",
            "d = hmac.digest(k, b\"payload-to-sign\", \"sha256\")".to_string(),
        ),
    ]
}

/// Look-alikes of the table, call and nested-quote shapes: a table row
/// whose value is a description, a certificate without a passphrase, a
/// Windows path, sealed values, a public WireGuard peer, a Terraform output
/// that is not sensitive, a cache key in a URL, an array type's literal.
fn table_and_call_lookalikes(rng: &mut Rng) -> Vec<(&'static str, String)> {
    let sealed = format!("Ag{}", rng.string(B64, 200));
    vec![
        (
            "table",
            "| DB_PASSWORD | the database password, from Vault |".to_string(),
        ),
        (
            "table",
            "│ NAME        │ VALUE      │\n│ LOG_LEVEL   │ debug      │".to_string(),
        ),
        (
            "shell",
            "curl --cert ./certs/client.pem --key ./certs/client.key https://mtls.example.test"
                .to_string(),
        ),
        (
            "shell",
            "curl --cert C:\\certs\\client.pem https://mtls.example.test".to_string(),
        ),
        (
            "config",
            format!(
                "apiVersion: bitnami.com/v1alpha1\nkind: SealedSecret\nspec:\n  encryptedData:\n    password: {sealed}"
            ),
        ),
        (
            "config",
            "spring.datasource.password=ENC(G6N718UuyPE5bHyWKyuLQSm02auQPUtm)".to_string(),
        ),
        (
            "shell",
            format!(
                "$ cat /etc/wireguard/wg0.conf\n[Peer]\nPublicKey = {}=\nAllowedIPs = 10.8.0.0/24",
                rng.string(B64, 43)
            ),
        ),
        (
            "json",
            "{\n  \"sensitive\": false,\n  \"type\": \"string\",\n  \"value\": \"eu-west-1\"\n}"
                .to_string(),
        ),
        (
            "url",
            format!("GET /cache?ns=builds&key=builds:{}", rng.string(HEX, 40)),
        ),
        ("code", "const SALT_LEN: [u8; 2] = [0, 16];".to_string()),
        (
            "prose",
            "open the app passwords page and create one named mailer".to_string(),
        ),
        (
            "shell",
            "bash -lc 'git commit -m '\\''fix: retry the upload'\\'''".to_string(),
        ),
        (
            "config",
            "AccountName=devstoreaccount1;AccountKey=Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==;".to_string(),
        ),
        (
            "html",
            format!("var options = {{ key: \"rzp_live_{}\", amount: 50000 }};", rng.string(ALNUM, 14)),
        ),
        (
            "tool_output",
            format!("Secret Type: Base64 High Entropy String\nHashed Secret: {}", rng.string(HEX, 40)),
        ),
        (
            "shell",
            "$secret = Get-AzKeyVaultSecret -VaultName kv-prod -Name sql-admin -AsPlainText".to_string(),
        ),
        (
            "shell",
            format!(
                "$ vault read -field=certificate pki/cert/ca\n-----BEGIN CERTIFICATE-----\n{}\n-----END CERTIFICATE-----",
                rng.string(B64, 64)
            ),
        ),
        (
            "config",
            "<UserAccounts>\n  <LocalAccounts>\n    <Value>true</Value>\n  </LocalAccounts>\n</UserAccounts>"
                .to_string(),
        ),
        (
            "config",
            "<PasswordExpires>\n  <Value>false</Value>\n</PasswordExpires>".to_string(),
        ),
        (
            "prose",
            "The app password is what lets SMTP work without 2FA prompts".to_string(),
        ),
        (
            "table",
            "mysql> DESCRIBE users;\n| password | varchar(255) | NO |  | NULL |  |\n| remember_token | varchar(100) | YES |  | NULL |  |"
                .to_string(),
        ),
        (
            "code",
            "const KEY: [u8; 32] = build_key();".to_string(),
        ),
        (
            "shell",
            "steamcmd +login anonymous +app_update 740 validate +quit".to_string(),
        ),
        (
            "sql",
            "postgres=# CREATE USER app;\nCREATE ROLE".to_string(),
        ),
        (
            "shell",
            "$ cat ~/.p4tickets\ncat: /home/dev/.p4tickets: No such file or directory".to_string(),
        ),
    ]
}

/// A secret's ARN (its name, not its value) and Algolia's search-only key,
/// which browsers are sent by design.
fn arn_and_search_key_lookalikes(rng: &mut Rng) -> Vec<(&'static str, String)> {
    vec![
        (
            "arn",
            format!(
                "aws secretsmanager get-secret-value --secret-id arn:aws:secretsmanager:us-west-2:{}:secret:billing/stripe-live-{} --query Name",
                rng.string(DIGITS, 12),
                rng.string(ALNUM, 6)
            ),
        ),
        (
            "public_key",
            format!(
                "NEXT_PUBLIC_ALGOLIA_SEARCH_ONLY_API_KEY={}",
                rng.string(HEX, 32)
            ),
        ),
        (
            "public_key",
            format!("ALGOLIA_SEARCH_KEY={}", rng.string(HEX, 32)),
        ),
    ]
}

/// Asana ids and times, here-strings under no secret's name, base64 under
/// `encoded` with no API key, an RCON port, "pw is" in a sentence, Google
/// keys apps ship, DocSearch's key, `sk-` inside a JWKS modulus.
fn here_string_and_reply_lookalikes(rng: &mut Rng) -> Vec<(&'static str, String)> {
    vec![
        (
            "ids",
            format!(
                "asana task {} moved at 12:30, see /1/2 in the board",
                rng.string(DIGITS, 16)
            ),
        ),
        (
            "shell",
            format!("grep -c needle <<< '{}'", rng.string(ALNUM, 24)),
        ),
        (
            "json",
            "{\"api_key_id\":\"x\",\"encoded\":\"aGVsbG8gd29ybGQgdGhpcyBpcyBub3QgYSBzZWNyZXQgYXQgYWxsIG9r\"}"
                .to_string(),
        ),
        ("shell", "mcrcon -H host -P 25575 list".to_string()),
        (
            "public_key",
            format!(
                "<script src=\"https://maps.googleapis.com/maps/api/js?key=AIza{}&callback=init\"></script>",
                rng.string(URL, 35)
            ),
        ),
        (
            "public_key",
            format!(
                "\"api_key\": [\n  {{\n    \"current_key\": \"AIza{}\"\n  }}\n]",
                rng.string(URL, 35)
            ),
        ),
        (
            "public_key",
            format!(
                "docsearch({{\n  appId: '{}',\n  apiKey: '{}', // public search-only key\n}});",
                rng.string(UPPER_DIGIT, 10),
                rng.string(HEX, 32)
            ),
        ),
        (
            "json",
            format!(
                "{{\"kty\": \"RSA\", \"n\": \"{}_sk-{}\", \"e\": \"AQAB\"}}",
                rng.string(URL, 40),
                rng.string(URL, 120)
            ),
        ),
        ("prose", "the new pw is stored in vault".to_string()),
    ]
}
