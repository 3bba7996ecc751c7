//! Positives: every provider format in several contexts, and the structured
//! families (URLs, headers, keys, JWTs, commands, kubeconfig, docker config)
//! in their own contexts. Each records the secret fragments that must be gone.

use super::*;

/// One text with secrets in it.
pub struct Positive {
    /// Group for the per-family figures.
    pub family: &'static str,
    /// Provider or format.
    pub kind: &'static str,
    pub text: String,
    /// Each must disappear entirely (no 5-character piece may remain).
    pub secrets: Vec<String>,
}

/// A token format; `prefixed` tokens are recognisable anywhere, the others
/// only under their variable name.
struct Provider {
    family: &'static str,
    kind: &'static str,
    var: &'static str,
    prefixed: bool,
    make: fn(&mut Rng) -> String,
}

macro_rules! p {
    ($family:expr, $kind:expr, $var:expr, $prefixed:expr, $make:expr) => {
        Provider {
            family: $family,
            kind: $kind,
            var: $var,
            prefixed: $prefixed,
            make: $make,
        }
    };
}

const PROVIDERS: &[Provider] = &[
    // Cloud.
    p!(
        "cloud",
        "aws_key_id",
        "AWS_ACCESS_KEY_ID",
        true,
        |r| format!("{}{}", r.pick(&["AKIA", "ASIA"]), r.string(UPPER_DIGIT, 16))
    ),
    p!("cloud", "aws_secret", "AWS_SECRET_ACCESS_KEY", false, |r| r
        .string(B64, 40)),
    p!(
        "cloud",
        "google_api_key",
        "GOOGLE_API_KEY",
        true,
        |r| format!("AIza{}", r.string(URL, 35))
    ),
    p!(
        "cloud",
        "google_oauth_secret",
        "GOOGLE_CLIENT_SECRET",
        true,
        |r| format!("GOCSPX-{}", r.string(URL, 28))
    ),
    p!(
        "cloud",
        "google_oauth_token",
        "GOOGLE_ACCESS_TOKEN",
        true,
        |r| format!("ya29.{}", r.string(URL, 120))
    ),
    p!(
        "cloud",
        "azure_client_secret",
        "AZURE_CLIENT_SECRET",
        true,
        |r| format!(
            "{}{}Q~{}",
            r.string(ALNUM, 3),
            r.string(DIGITS, 1),
            r.string(
                "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_~.-",
                34
            )
        )
    ),
    p!(
        "cloud",
        "azure_storage_key",
        "AZURE_STORAGE_KEY",
        false,
        |r| format!("{}==", r.string(B64, 86))
    ),
    p!(
        "cloud",
        "alibaba_key_id",
        "ALIBABA_CLOUD_ACCESS_KEY_ID",
        true,
        |r| format!("LTAI{}", r.string(ALNUM, 20))
    ),
    // Code hosts.
    p!(
        "code_hosts",
        "github_classic",
        "GITHUB_TOKEN",
        true,
        |r| format!(
            "{}{}",
            r.pick(&["ghp_", "gho_", "ghu_", "ghs_", "ghr_"]),
            checksummed(r)
        )
    ),
    p!(
        "code_hosts",
        "github_fine_grained",
        "GH_PAT",
        true,
        |r| format!(
            "github_pat_11{}_{}",
            r.string(UPPER_DIGIT, 20),
            r.string(ALNUM, 59)
        )
    ),
    p!("code_hosts", "gitlab", "GITLAB_TOKEN", true, |r| format!(
        "{}{}",
        r.pick(&["glpat-", "gldt-", "glrt-", "glft-", "glsoat-", "glcbt-"]),
        r.string(URL, 20)
    )),
    p!(
        "code_hosts",
        "gitlab_trigger",
        "CI_TRIGGER_TOKEN",
        true,
        |r| format!("glptt-{}", r.string(HEX, 40))
    ),
    p!(
        "code_hosts",
        "gitlab_runner_registration",
        "RUNNER_REGISTRATION_TOKEN",
        true,
        |r| format!("GR1348941{}", r.string(URL, 20))
    ),
    p!(
        "code_hosts",
        "bitbucket",
        "BITBUCKET_APP_PASSWORD",
        true,
        |r| format!("ATBB{}", r.string(ALNUM, 32))
    ),
    p!(
        "code_hosts",
        "atlassian",
        "ATLASSIAN_API_TOKEN",
        true,
        |r| format!("ATATT3xFfGF0{}", r.string(URL, 180))
    ),
    // Model providers.
    p!(
        "model_providers",
        "openai",
        "OPENAI_API_KEY",
        true,
        |r| match r.below(4) {
            0 => format!("sk-{}", r.string(ALNUM, 48)),
            1 => format!("sk-proj-{}", r.string(URL, 156)),
            2 => format!("sk-svcacct-{}", r.string(URL, 120)),
            _ => format!("sk-admin-{}", r.string(URL, 100)),
        }
    ),
    p!(
        "model_providers",
        "anthropic",
        "ANTHROPIC_API_KEY",
        true,
        |r| format!(
            "sk-ant-{}-{}AA",
            r.pick(&["api03", "admin01"]),
            r.string(URL, 93)
        )
    ),
    p!(
        "model_providers",
        "huggingface",
        "HF_TOKEN",
        true,
        |r| format!("hf_{}", r.string(LETTERS, 34))
    ),
    p!(
        "model_providers",
        "groq",
        "GROQ_API_KEY",
        true,
        |r| format!("gsk_{}", r.string(ALNUM, 52))
    ),
    p!(
        "model_providers",
        "replicate",
        "REPLICATE_API_TOKEN",
        true,
        |r| format!("r8_{}", r.string(ALNUM, 37))
    ),
    p!(
        "model_providers",
        "mistral",
        "MISTRAL_API_KEY",
        false,
        |r| r.string(ALNUM, 32)
    ),
    p!("model_providers", "cohere", "COHERE_API_KEY", false, |r| r
        .string(ALNUM, 40)),
    p!(
        "model_providers",
        "perplexity",
        "PERPLEXITY_API_KEY",
        true,
        |r| format!("pplx-{}", r.string(ALNUM, 48))
    ),
    p!("model_providers", "xai", "XAI_API_KEY", true, |r| format!(
        "xai-{}",
        r.string(ALNUM, 80)
    )),
    p!(
        "model_providers",
        "openrouter",
        "OPENROUTER_API_KEY",
        true,
        |r| format!("sk-or-v1-{}", r.string(HEX, 64))
    ),
    p!(
        "model_providers",
        "deepseek",
        "DEEPSEEK_API_KEY",
        true,
        |r| format!("sk-{}", r.string(HEX, 32))
    ),
    p!(
        "model_providers",
        "together",
        "TOGETHER_API_KEY",
        false,
        |r| r.string(HEX, 64)
    ),
    p!(
        "model_providers",
        "fireworks",
        "FIREWORKS_API_KEY",
        true,
        |r| format!("fw_{}", r.string(ALNUM, 24))
    ),
    p!(
        "model_providers",
        "langsmith",
        "LANGSMITH_API_KEY",
        true,
        |r| format!("lsv2_pt_{}_{}", r.string(HEX, 32), r.string(HEX, 10))
    ),
    p!(
        "model_providers",
        "pinecone",
        "PINECONE_API_KEY",
        true,
        |r| format!("pcsk_{}_{}", r.string(ALNUM, 6), r.string(ALNUM, 58))
    ),
    p!(
        "model_providers",
        "elevenlabs",
        "ELEVENLABS_API_KEY",
        true,
        |r| format!("sk_{}", r.string(HEX, 48))
    ),
    p!(
        "model_providers",
        "azure_openai",
        "AZURE_OPENAI_API_KEY",
        false,
        |r| r.string(HEX, 32)
    ),
    // Payments.
    p!(
        "payments",
        "stripe_secret",
        "STRIPE_SECRET_KEY",
        true,
        |r| format!(
            "{}{}",
            r.pick(&["sk_live_", "sk_test_", "rk_live_", "rk_test_"]),
            r.string(ALNUM, 99)
        )
    ),
    p!(
        "payments",
        "stripe_webhook",
        "STRIPE_WEBHOOK_SECRET",
        true,
        |r| format!("whsec_{}", r.string(ALNUM, 32))
    ),
    p!(
        "payments",
        "square",
        "SQUARE_ACCESS_TOKEN",
        true,
        |r| format!("{}{}", r.pick(&["sq0atp-", "sq0csp-"]), r.string(URL, 22))
    ),
    // Chat.
    p!("chat", "slack_bot", "SLACK_BOT_TOKEN", true, |r| format!(
        "xoxb-{}-{}-{}",
        r.string(DIGITS, 12),
        r.string(DIGITS, 13),
        r.string(ALNUM, 24)
    )),
    p!("chat", "slack_user", "SLACK_USER_TOKEN", true, |r| format!(
        "xoxp-{}-{}-{}-{}",
        r.string(DIGITS, 12),
        r.string(DIGITS, 12),
        r.string(DIGITS, 13),
        r.string(HEX, 32)
    )),
    p!("chat", "slack_app", "SLACK_APP_TOKEN", true, |r| format!(
        "xapp-1-A{}-{}-{}",
        r.string(UPPER_DIGIT, 10),
        r.string(DIGITS, 13),
        r.string(HEX, 64)
    )),
    p!(
        "chat",
        "telegram_bot",
        "TELEGRAM_BOT_TOKEN",
        true,
        |r| format!("{}:AA{}", r.string(DIGITS, 10), r.string(URL, 33))
    ),
    p!(
        "chat",
        "discord_bot",
        "DISCORD_BOT_TOKEN",
        false,
        |r| format!(
            "MT{}.{}.{}",
            r.string(ALNUM, 24),
            r.string(URL, 6),
            r.string(URL, 38)
        )
    ),
    // Package registries.
    p!("registries", "npm", "NPM_TOKEN", true, |r| format!(
        "npm_{}",
        checksummed(r)
    )),
    p!("registries", "pypi", "PYPI_TOKEN", true, |r| format!(
        "pypi-AgEIcHlwaS5vcmc{}",
        r.string(URL, 150)
    )),
    p!(
        "registries",
        "crates_io",
        "CARGO_REGISTRY_TOKEN",
        true,
        |r| format!("cio{}", r.string(ALNUM, 32))
    ),
    p!(
        "registries",
        "rubygems",
        "GEM_HOST_API_KEY",
        true,
        |r| format!("rubygems_{}", r.string(HEX, 48))
    ),
    p!("registries", "nuget", "NUGET_API_KEY", true, |r| format!(
        "oy2{}",
        r.string(LOWER_DIGIT, 43)
    )),
    p!(
        "registries",
        "dockerhub",
        "DOCKERHUB_TOKEN",
        true,
        |r| format!("dckr_pat_{}", r.string(URL, 27))
    ),
    // SaaS.
    p!("saas", "sendgrid", "SENDGRID_API_KEY", true, |r| format!(
        "SG.{}.{}",
        r.string(URL, 22),
        r.string(URL, 43)
    )),
    p!(
        "saas",
        "twilio_api_key",
        "TWILIO_API_KEY",
        true,
        |r| format!("SK{}", r.string(HEX, 32))
    ),
    p!("saas", "mailgun", "MAILGUN_API_KEY", true, |r| format!(
        "key-{}",
        r.string(HEX, 32)
    )),
    p!(
        "saas",
        "shopify",
        "SHOPIFY_ACCESS_TOKEN",
        true,
        |r| format!(
            "{}{}",
            r.pick(&["shpat_", "shpss_", "shpca_", "shppa_"]),
            r.string(HEX, 32)
        )
    ),
    p!(
        "saas",
        "digitalocean",
        "DIGITALOCEAN_TOKEN",
        true,
        |r| format!("{}{}", r.pick(&["dop_v1_", "doo_v1_"]), r.string(HEX, 64))
    ),
    p!("saas", "heroku", "HEROKU_API_KEY", true, |r| format!(
        "HRKU-AA{}",
        r.string(URL, 58)
    )),
    p!("saas", "heroku_legacy", "HEROKU_API_KEY", false, uuid),
    p!("saas", "vault", "VAULT_TOKEN", true, |r| format!(
        "{}{}",
        r.pick(&["hvs.", "hvb."]),
        r.string(URL, 90)
    )),
    p!("saas", "doppler", "DOPPLER_TOKEN", true, |r| format!(
        "dp.pt.{}",
        r.string(ALNUM, 43)
    )),
    p!("saas", "linear", "LINEAR_API_KEY", true, |r| format!(
        "lin_api_{}",
        r.string(ALNUM, 40)
    )),
    p!(
        "saas",
        "notion",
        "NOTION_TOKEN",
        true,
        |r| match r.below(2) {
            0 => format!("secret_{}", r.string(ALNUM, 43)),
            _ => format!("ntn_{}{}", r.string(DIGITS, 11), r.string(ALNUM, 35)),
        }
    ),
    p!("saas", "datadog_api", "DD_API_KEY", false, |r| r
        .string(HEX, 32)),
    p!("saas", "datadog_app", "DD_APP_KEY", false, |r| r
        .string(HEX, 40)),
    p!(
        "saas",
        "sentry",
        "SENTRY_AUTH_TOKEN",
        true,
        |r| match r.below(2) {
            0 => format!(
                "sntrys_eyJpYXQiOjE3{}_{}",
                r.string(URL, 60),
                r.string(URL, 43)
            ),
            _ => format!("sntryu_{}", r.string(HEX, 64)),
        }
    ),
    p!("saas", "newrelic", "NEW_RELIC_API_KEY", true, |r| format!(
        "NRAK-{}",
        r.string(UPPER_DIGIT, 27)
    )),
    p!("saas", "postman", "POSTMAN_API_KEY", true, |r| format!(
        "PMAK-{}-{}",
        r.string(HEX, 24),
        r.string(HEX, 34)
    )),
    p!("saas", "pulumi", "PULUMI_ACCESS_TOKEN", true, |r| format!(
        "pul-{}",
        r.string(HEX, 40)
    )),
    p!(
        "saas",
        "grafana",
        "GRAFANA_SERVICE_ACCOUNT_TOKEN",
        true,
        |r| format!("glsa_{}_{}", r.string(ALNUM, 32), r.string(HEX, 8))
    ),
    p!("saas", "databricks", "DATABRICKS_TOKEN", true, |r| format!(
        "dapi{}",
        r.string(HEX, 32)
    )),
    p!(
        "saas",
        "supabase",
        "SUPABASE_ACCESS_TOKEN",
        true,
        |r| format!("sbp_{}", r.string(HEX, 40))
    ),
    p!("saas", "tailscale", "TS_AUTHKEY", true, |r| format!(
        "tskey-auth-{}CNTRL-{}",
        r.string(ALNUM, 7),
        r.string(ALNUM, 32)
    )),
    p!(
        "saas",
        "buildkite",
        "BUILDKITE_API_TOKEN",
        true,
        |r| format!("bkua_{}", r.string(HEX, 40))
    ),
    p!("saas", "age", "SOPS_AGE_KEY", true, |r| format!(
        "AGE-SECRET-KEY-1{}",
        r.string(BECH32, 58)
    )),
    p!(
        "saas",
        "onepassword",
        "OP_SERVICE_ACCOUNT_TOKEN",
        true,
        |r| format!("ops_eyJ{}", r.string(URL, 300))
    ),
    p!(
        "saas",
        "mapbox_secret",
        "MAPBOX_SECRET_TOKEN",
        true,
        |r| format!("sk.eyJ1Ijoi{}.{}", r.string(URL, 60), r.string(URL, 22))
    ),
    p!(
        "saas",
        "terraform",
        "TF_TOKEN_app_terraform_io",
        true,
        |r| format!("{}.atlasv1.{}", r.string(ALNUM, 14), r.string(URL, 67))
    ),
    p!("saas", "cloudflare", "CLOUDFLARE_API_TOKEN", false, |r| r
        .string(URL, 40)),
    p!("saas", "vercel", "VERCEL_TOKEN", false, |r| r
        .string(ALNUM, 24)),
    p!("saas", "flyio", "FLY_API_TOKEN", true, |r| format!(
        "fo1_{}",
        r.string(URL, 43)
    )),
    p!(
        "saas",
        "planetscale",
        "PLANETSCALE_SERVICE_TOKEN",
        true,
        |r| format!("pscale_tkn_{}", r.string(URL, 43))
    ),
    p!("saas", "figma", "FIGMA_TOKEN", true, |r| format!(
        "figd_{}",
        r.string(URL, 40)
    )),
    p!("saas", "netlify", "NETLIFY_AUTH_TOKEN", true, |r| format!(
        "nfp_{}",
        r.string(ALNUM, 36)
    )),
    p!(
        "saas",
        "contentful",
        "CONTENTFUL_MANAGEMENT_TOKEN",
        true,
        |r| format!("CFPAT-{}", r.string(URL, 43))
    ),
    p!("saas", "prefect", "PREFECT_API_KEY", true, |r| format!(
        "pnu_{}",
        r.string(ALNUM, 36)
    )),
    p!("saas", "dynatrace", "DT_API_TOKEN", true, |r| format!(
        "dt0c01.{}.{}",
        r.string(UPPER_DIGIT, 24),
        r.string(ALNUM, 64)
    )),
    // Generic application secrets (no provider format).
    p!(
        "assignments",
        "django_secret",
        "DJANGO_SECRET_KEY",
        false,
        |r| r.string("abcdefghijklmnopqrstuvwxyz0123456789!@#%^*-_=+", 50)
    ),
    p!("assignments", "jwt_secret", "JWT_SECRET", false, |r| r
        .string(HEX, 64)),
    p!(
        "assignments",
        "session_secret",
        "SESSION_SECRET",
        false,
        |r| r.string(URL, 43)
    ),
    p!(
        "assignments",
        "encryption_key",
        "ENCRYPTION_KEY",
        false,
        |r| format!("{}=", r.string(B64, 43))
    ),
    p!(
        "assignments",
        "client_secret",
        "OAUTH_CLIENT_SECRET",
        false,
        |r| r.string(URL, 40)
    ),
    p!(
        "assignments",
        "webhook_secret",
        "WEBHOOK_SECRET",
        false,
        |r| r.string(ALNUM, 32)
    ),
];

type Context = fn(&str, &str) -> String;

/// Where a token sits. `true`: only tokens with a recognisable prefix.
const CONTEXTS: &[(bool, Context)] = &[
    (false, |v, s| {
        format!("PATH=/usr/local/bin:/usr/bin\nHOME=/home/dev\n{v}={s}\nSHELL=/bin/zsh\n")
    }),
    (false, |v, s| format!("$ export {v}=\"{s}\"\n$ ./run.sh\n")),
    (false, |v, s| {
        format!(
            "{{\"{}\": \"{s}\", \"region\": \"us-east-1\"}}",
            v.to_lowercase()
        )
    }),
    (false, |v, s| {
        format!(
            "service:\n  name: api\n  {}: {s}\n  replicas: 2\n",
            v.to_lowercase()
        )
    }),
    (false, |_, s| {
        format!("curl -sS -H \"Authorization: Bearer {s}\" https://api.example.com/v1/models")
    }),
    (true, |_, s| {
        format!("2025-03-04T10:22:31Z INFO client: using credential {s} for upload (attempt 1)")
    }),
    (false, |v, s| {
        let output = format!("$ cat .env\n{v}={s}\nDEBUG=1\n");
        format!(
            "{{\"type\":\"response_item\",\"payload\":{{\"type\":\"function_call_output\",\"call_id\":\"call_7\",\"output\":{}}}}}",
            json_string(&output)
        )
    }),
    (false, |_, s| {
        format!("client = Client(api_key=\"{s}\", timeout=30)")
    }),
    (false, |v, s| {
        format!("# local settings\n{v}={s}\nPORT=3000\n")
    }),
    (false, |v, s| {
        format!("docker run --rm -e {v}={s} ghcr.io/acme/app:latest")
    }),
    (false, |_, s| {
        format!("./deploy.sh --token {s} --env production")
    }),
    (false, |v, s| {
        format!("[auth]\n{} = \"{s}\"\n", v.to_lowercase())
    }),
    (false, |_, s| {
        format!("curl -s https://api.example.com/v1/items -H 'X-API-Key: {s}'")
    }),
    (true, |_, s| {
        format!("Here is what I get with `{s}`, can you see why the request fails?")
    }),
];

/// How many contexts each provider is tried in.
const PER_PROVIDER: usize = 6;

fn provider_positives(rng: &mut Rng, out: &mut Vec<Positive>) {
    for p in PROVIDERS {
        let usable: Vec<&Context> = CONTEXTS
            .iter()
            .filter(|(needs_prefix, _)| p.prefixed || !needs_prefix)
            .map(|(_, c)| c)
            .collect();
        let first = rng.below(usable.len());
        for k in 0..PER_PROVIDER {
            let secret = (p.make)(rng);
            let ctx = usable[(first + k * 5) % usable.len()];
            out.push(Positive {
                family: p.family,
                kind: p.kind,
                text: ctx(p.var, &secret),
                secrets: vec![secret],
            });
        }
    }
}

fn pem_body(rng: &mut Rng) -> Vec<String> {
    let n = rng.range(6, 14);
    let mut lines: Vec<String> = (0..n).map(|_| rng.string(B64, 64)).collect();
    lines.push(format!("{}==", rng.string(B64, 30)));
    lines
}

const KEY_LABELS: &[&str] = &[
    "RSA PRIVATE KEY",
    "PRIVATE KEY",
    "EC PRIVATE KEY",
    "OPENSSH PRIVATE KEY",
    "ENCRYPTED PRIVATE KEY",
    "DSA PRIVATE KEY",
    "PGP PRIVATE KEY BLOCK",
];

fn private_keys(rng: &mut Rng, out: &mut Vec<Positive>) {
    for i in 0..28 {
        let label = KEY_LABELS[i % KEY_LABELS.len()];
        let body = pem_body(rng);
        let block = format!(
            "-----BEGIN {label}-----\n{}\n-----END {label}-----\n",
            body.join("\n")
        );
        let (kind, text, secrets) = match i % 4 {
            0 => (
                "pem_raw",
                format!("$ cat ~/.ssh/id_deploy\n{block}$ ls\n"),
                body.clone(),
            ),
            1 => {
                let key_id = rng.string(HEX, 40);
                let sa = format!(
                    "{{\"type\": \"service_account\", \"project_id\": \"acme-prod\", \"private_key_id\": \"{key_id}\", \"private_key\": {}, \"client_email\": \"ci@acme-prod.iam.gserviceaccount.com\"}}",
                    json_string(&block)
                );
                let mut s = body.clone();
                s.push(key_id);
                ("gcp_service_account_json", sa, s)
            }
            2 => {
                let inner = format!("{{\"private_key\": {}}}", json_string(&block));
                let line = format!(
                    "{{\"type\":\"function_call_output\",\"output\":{}}}",
                    json_string(&format!("$ cat key.json\n{inner}\n"))
                );
                ("pem_double_escaped", line, body.clone())
            }
            _ => {
                let head: Vec<String> = body[..4].to_vec();
                let text = format!(
                    "$ head -5 server.key\n-----BEGIN {label}-----\n{}\n$ echo done\n",
                    head.join("\n")
                );
                ("pem_truncated", text, head)
            }
        };
        out.push(Positive {
            family: "private_keys",
            kind,
            text,
            secrets,
        });
    }
    for _ in 0..4 {
        let body = pem_body(rng);
        let yaml = format!(
            "tls:\n  key: |\n    -----BEGIN PRIVATE KEY-----\n    {}\n    -----END PRIVATE KEY-----\n",
            body.join("\n    ")
        );
        out.push(Positive {
            family: "private_keys",
            kind: "pem_yaml_block",
            text: yaml,
            secrets: body,
        });
    }
}

fn jwt(rng: &mut Rng) -> String {
    let (alg, sig_len) = *rng.pick(&[("HS256", 43), ("RS256", 342), ("ES256", 86)]);
    let header = format!(
        "{{\"alg\":\"{alg}\",\"typ\":\"JWT\",\"kid\":\"{}\"}}",
        rng.string(ALNUM, 8)
    );
    let payload = format!(
        "{{\"sub\":\"{}\",\"iat\":17{},\"exp\":17{},\"scope\":\"read write\"}}",
        rng.string(DIGITS, 9),
        rng.string(DIGITS, 8),
        rng.string(DIGITS, 8)
    );
    format!(
        "{}.{}.{}",
        base64url(header.as_bytes()),
        base64url(payload.as_bytes()),
        rng.string(URL, sig_len)
    )
}

fn jwts(rng: &mut Rng, out: &mut Vec<Positive>) {
    let contexts: &[Context] = &[
        |_, s| format!("Authorization: Bearer {s}"),
        |_, s| format!("https://app.example.com/callback#id_token={s}&state=af0ifjsldkj"),
        |_, s| {
            format!(
                "{{\"access_token\": \"{s}\", \"token_type\": \"Bearer\", \"expires_in\": 3600}}"
            )
        },
        |_, s| format!("Set-Cookie: jwt={s}; Path=/; HttpOnly"),
        |_, s| format!("DEBUG auth: decoded claims from {s} ok"),
        |_, s| format!("SUPABASE_SERVICE_ROLE_KEY={s}"),
    ];
    for i in 0..24 {
        let s = jwt(rng);
        out.push(Positive {
            family: "jwt",
            kind: "jwt",
            text: contexts[i % contexts.len()]("", &s),
            secrets: vec![s],
        });
    }
}

fn url_passwords(rng: &mut Rng, out: &mut Vec<Positive>) {
    let templates: &[Context] = &[
        |u, p| format!("DATABASE_URL=postgres://{u}:{p}@db.internal:5432/shop"),
        |u, p| format!("mysql://{u}:{p}@127.0.0.1:3306/app?charset=utf8mb4"),
        |u, p| format!("mongodb+srv://{u}:{p}@cluster0.x7k2p.mongodb.net/shop?retryWrites=true"),
        |_, p| format!("REDIS_URL=redis://:{p}@cache.internal:6379/0"),
        |u, p| format!("amqp://{u}:{p}@rabbit:5672/vhost"),
        |u, p| format!("$ git clone https://{u}:{p}@git.example.com/acme/api.git"),
        |u, p| format!("ftp://{u}:{p}@files.example.com/pub/"),
        |u, p| format!("{{\"url\": \"postgresql+asyncpg://{u}:{p}@pg:5432/app\"}}"),
        |u, p| format!("smtp://{u}:{p}@smtp.example.com:587"),
        |u, p| format!("jdbc:postgresql://db:5432/shop?user={u}&password={p}&ssl=true"),
    ];
    for i in 0..40 {
        let user = rng
            .pick(&["app", "admin", "deploy", "svc_api", "root"])
            .to_string();
        let pw = password(rng);
        out.push(Positive {
            family: "url_passwords",
            kind: "url_password",
            text: templates[i % templates.len()](&user, &pw),
            secrets: vec![pw],
        });
    }
}

fn connection_strings(rng: &mut Rng, out: &mut Vec<Positive>) {
    for i in 0..24 {
        let (kind, text, secret) = match i % 6 {
            0 => {
                let p = password(rng);
                (
                    "mssql",
                    format!(
                        "Server=tcp:acme.database.windows.net,1433;Initial Catalog=shop;User ID=app;Password={p};Encrypt=True;"
                    ),
                    p,
                )
            }
            1 => {
                let p = password(rng);
                (
                    "odbc",
                    format!("Driver={{ODBC Driver 18 for SQL Server}};Server=db;Uid=sa;Pwd={p};"),
                    p,
                )
            }
            2 => {
                let k = format!("{}==", rng.string(B64, 86));
                (
                    "azure_storage",
                    format!(
                        "DefaultEndpointsProtocol=https;AccountName=acmeprod;AccountKey={k};EndpointSuffix=core.windows.net"
                    ),
                    k,
                )
            }
            3 => {
                let k = format!("{}=", rng.string(B64, 43));
                (
                    "azure_service_bus",
                    format!(
                        "Endpoint=sb://acme.servicebus.windows.net/;SharedAccessKeyName=RootManageSharedAccessKey;SharedAccessKey={k}"
                    ),
                    k,
                )
            }
            4 => {
                let sig = format!("{}%3D", rng.string(ALNUM, 43));
                (
                    "azure_sas",
                    format!(
                        "https://acme.blob.core.windows.net/backups/db.bak?sv=2022-11-02&ss=b&srt=o&sp=r&se=2025-01-01T00:00:00Z&sig={sig}"
                    ),
                    sig,
                )
            }
            _ => {
                let p = password(rng);
                (
                    "npgsql",
                    format!("Host=db;Port=5432;Database=shop;Username=app;Password={p}"),
                    p,
                )
            }
        };
        out.push(Positive {
            family: "connection_strings",
            kind,
            text,
            secrets: vec![secret],
        });
    }
}

fn http_auth(rng: &mut Rng, out: &mut Vec<Positive>) {
    for i in 0..30 {
        let (kind, text, secrets) = match i % 6 {
            0 => {
                let b =
                    base64(format!("{}:{}", rng.pick(&["admin", "ci"]), password(rng)).as_bytes());
                (
                    "basic",
                    format!("> GET /api HTTP/1.1\n> Authorization: Basic {b}\n> Accept: */*"),
                    vec![b],
                )
            }
            1 => {
                let t = rng.string(ALNUM, 40);
                (
                    "token_scheme",
                    format!("curl -H \"Authorization: token {t}\" https://api.example.com/user"),
                    vec![t],
                )
            }
            2 => {
                let (a, b) = (rng.string(URL, 32), rng.string(ALNUM, 32));
                (
                    "cookie",
                    format!("> Cookie: sessionid={a}; csrftoken={b}; theme=dark"),
                    vec![a, b],
                )
            }
            3 => {
                let a = rng.string(HEX, 48);
                (
                    "set_cookie",
                    format!("< Set-Cookie: connect.sid=s%3A{a}; Path=/; HttpOnly; Secure"),
                    vec![a],
                )
            }
            4 => {
                let t = rng.string(URL, 32);
                (
                    "header_json",
                    format!(
                        "headers = {{\"Authorization\": \"Bearer {t}\", \"Accept\": \"application/json\"}}"
                    ),
                    vec![t],
                )
            }
            _ => {
                let b = base64(format!("proxy:{}", password(rng)).as_bytes());
                (
                    "proxy_authorization",
                    format!("Proxy-Authorization: Basic {b}"),
                    vec![b],
                )
            }
        };
        out.push(Positive {
            family: "http_auth",
            kind,
            text,
            secrets,
        });
    }
}

fn assignments(rng: &mut Rng, out: &mut Vec<Positive>) {
    let templates: &[Context] = &[
        |_, p| format!("DB_PASSWORD={p}"),
        |_, p| format!("{{\"username\": \"app\", \"password\": \"{p}\"}}"),
        |_, p| format!("database:\n  user: app\n  password: {p}\n"),
        |_, p| format!("POSTGRES_PASSWORD: \"{p}\""),
        |_, p| format!("spring.datasource.password={p}"),
        |_, p| format!("$ PGPASSWORD='{p}' psql -h db -U app shop"),
        |_, p| format!("machine api.example.com login deploy password {p}"),
        |_, p| format!("$env:DB_PASSWORD = \"{p}\""),
        |_, p| format!("const password = \"{p}\";"),
        |_, p| format!("MYSQL_ROOT_PASSWORD={p}"),
        |_, p| format!("conn = connect(host=\"db\", user=\"app\", passwd=\"{p}\")"),
        |_, p| format!("smtp_pass: '{p}'"),
    ];
    for i in 0..36 {
        let p = password(rng);
        out.push(Positive {
            family: "assignments",
            kind: "password",
            text: templates[i % templates.len()]("", &p),
            secrets: vec![p],
        });
    }
}

fn cli_flags(rng: &mut Rng, out: &mut Vec<Positive>) {
    let templates: &[Context] = &[
        |_, p| format!("$ docker login -u deploy -p {p} registry.example.com"),
        |_, p| format!("$ mysql -h db -u root -p{p} shop < dump.sql"),
        |_, p| format!("$ curl -u admin:{p} https://jenkins.example.com/api/json"),
        |_, p| format!("$ sshpass -p '{p}' ssh deploy@10.0.0.5"),
        |_, p| format!("$ redis-cli -h cache -a {p} ping"),
        |_, p| format!("$ mongosh \"mongodb://db:27017\" -u admin -p {p}"),
        |_, p| format!("$ ./manage.py createsuperuser --password {p}"),
        |_, p| format!("$ kubectl create secret generic db --from-literal=password={p}"),
        |_, p| format!("$ helm install app ./chart --set db.password={p}"),
        |_, p| format!("$ psql --dbname=shop --password={p}"),
        |_, p| format!("$ openssl pkcs12 -export -in c.pem -out c.p12 -passout pass:{p}"),
        |_, p| format!("$ podman login quay.io -u bot -p {p}"),
    ];
    for i in 0..36 {
        let p = password(rng);
        out.push(Positive {
            family: "cli_flags",
            kind: "password_flag",
            text: templates[i % templates.len()]("", &p),
            secrets: vec![p],
        });
    }
    for i in 0..12 {
        let t = rng.string(URL, 40);
        let text = match i % 4 {
            0 => format!("$ vercel deploy --token {t} --prod"),
            1 => format!("$ ./cli --api-key={t} sync"),
            2 => format!("$ aws configure set aws_secret_access_key {t}"),
            _ => format!("$ npm config set //registry.npmjs.org/:_authToken {t}"),
        };
        out.push(Positive {
            family: "cli_flags",
            kind: "token_flag",
            text,
            secrets: vec![t],
        });
    }
}

fn kube_docker(rng: &mut Rng, out: &mut Vec<Positive>) {
    for i in 0..24 {
        let (kind, text, secrets) = match i % 6 {
            0 => {
                let t = jwt(rng);
                (
                    "kubeconfig_token",
                    format!("users:\n- name: admin\n  user:\n    token: {t}\n"),
                    vec![t],
                )
            }
            1 => {
                let t = format!(
                    "{}.{}",
                    rng.string(LOWER_DIGIT, 6),
                    rng.string(LOWER_DIGIT, 16)
                );
                (
                    "kubeadm_token",
                    format!("users:\n- name: bootstrap\n  user:\n    token: {t}\n"),
                    vec![t],
                )
            }
            2 => {
                let pem = format!(
                    "-----BEGIN RSA PRIVATE KEY-----\n{}\n-----END RSA PRIVATE KEY-----\n",
                    pem_body(rng).join("\n")
                );
                let b = base64(pem.as_bytes());
                (
                    "client_key_data",
                    format!(
                        "    client-certificate-data: LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0t\n    client-key-data: {b}\n"
                    ),
                    vec![b],
                )
            }
            3 => {
                let b = base64(format!("deploy:{}", password(rng)).as_bytes());
                (
                    "docker_auths",
                    format!(
                        "{{\"auths\": {{\"https://index.docker.io/v1/\": {{\"auth\": \"{b}\"}}}}}}"
                    ),
                    vec![b],
                )
            }
            4 => {
                let t = rng.string(URL, 64);
                (
                    "docker_identitytoken",
                    format!(
                        "{{\"auths\": {{\"acme.azurecr.io\": {{\"auth\": \"\", \"identitytoken\": \"{t}\"}}}}}}"
                    ),
                    vec![t],
                )
            }
            _ => {
                let p = base64(password(rng).as_bytes());
                (
                    "k8s_secret_data",
                    format!(
                        "apiVersion: v1\nkind: Secret\ndata:\n  username: YWRtaW4=\n  password: {p}\n"
                    ),
                    vec![p],
                )
            }
        };
        out.push(Positive {
            family: "kube_docker",
            kind,
            text,
            secrets,
        });
    }
}

fn webhooks_and_pairs(rng: &mut Rng, out: &mut Vec<Positive>) {
    for i in 0..30 {
        let (family, kind, text, secrets) = match i % 6 {
            0 => {
                let path = format!(
                    "T{}/B{}/{}",
                    rng.string(UPPER_DIGIT, 10),
                    rng.string(UPPER_DIGIT, 10),
                    rng.string(ALNUM, 24)
                );
                (
                    "chat",
                    "slack_webhook",
                    format!("SLACK_WEBHOOK_URL=https://hooks.slack.com/services/{path}"),
                    vec![path],
                )
            }
            1 => {
                let t = rng.string(URL, 68);
                (
                    "chat",
                    "discord_webhook",
                    format!(
                        "curl -X POST https://discord.com/api/webhooks/{}/{t} -d '{{\"content\":\"hi\"}}'",
                        rng.string(DIGITS, 19)
                    ),
                    vec![t],
                )
            }
            2 => {
                let rest = format!(
                    "{}@{}/IncomingWebhook/{}/{}",
                    uuid(rng),
                    uuid(rng),
                    rng.string(HEX, 32),
                    uuid(rng)
                );
                (
                    "chat",
                    "teams_webhook",
                    format!("webhook: https://acme.webhook.office.com/webhookb2/{rest}"),
                    vec![rest],
                )
            }
            3 => {
                let t = format!(
                    "MT{}.{}.{}",
                    rng.string(ALNUM, 24),
                    rng.string(URL, 6),
                    rng.string(URL, 38)
                );
                (
                    "chat",
                    "discord_bot_in_code",
                    format!(
                        "import discord\n\nclient = discord.Client(intents=intents)\nclient.run(\"{t}\")\n"
                    ),
                    vec![t],
                )
            }
            4 => {
                let (sid, tok) = (format!("AC{}", rng.string(HEX, 32)), rng.string(ALNUM, 32));
                (
                    "saas",
                    "twilio_auth_pair",
                    format!(
                        "curl -X POST https://api.twilio.com/2010-04-01/Accounts/{sid}/Messages.json -u {sid}:{tok}"
                    ),
                    vec![tok],
                )
            }
            _ => {
                let (id, secret) = (
                    format!("AKIA{}", rng.string(UPPER_DIGIT, 16)),
                    rng.string(B64, 40),
                );
                (
                    "cloud",
                    "aws_credentials_csv",
                    format!("User name,Access key ID,Secret access key\nci-bot,{id},{secret}\n"),
                    vec![id, secret],
                )
            }
        };
        out.push(Positive {
            family,
            kind,
            text,
            secrets,
        });
    }
    for _ in 0..6 {
        let (id, secret) = (
            format!("AKIA{}", rng.string(UPPER_DIGIT, 16)),
            rng.string(B64, 40),
        );
        out.push(Positive {
            family: "cloud",
            kind: "aws_credentials_file",
            text: format!("[default]\naws_access_key_id = {id}\naws_secret_access_key = {secret}\nregion = eu-west-1\n"),
            secrets: vec![id, secret],
        });
        let dsn_key = rng.string(HEX, 32);
        out.push(Positive {
            family: "saas",
            kind: "sentry_dsn",
            text: format!(
                "SENTRY_DSN=https://{dsn_key}@o{}.ingest.sentry.io/{}",
                rng.string(DIGITS, 6),
                rng.string(DIGITS, 7)
            ),
            secrets: vec![dsn_key],
        });
    }
}

/// The whole positive corpus (deterministic).
pub fn all() -> Vec<Positive> {
    let mut rng = Rng::new(0x5EC2_E7C0_2025);
    let mut out = Vec::new();
    provider_positives(&mut rng, &mut out);
    private_keys(&mut rng, &mut out);
    jwts(&mut rng, &mut out);
    url_passwords(&mut rng, &mut out);
    connection_strings(&mut rng, &mut out);
    http_auth(&mut rng, &mut out);
    assignments(&mut rng, &mut out);
    cli_flags(&mut rng, &mut out);
    kube_docker(&mut rng, &mut out);
    webhooks_and_pairs(&mut rng, &mut out);
    out
}
