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
                ("gcp_service_account_json", sa, body.clone())
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
    }
}

// ---------------------------------------------------------------------------
// Commands, printed key material, configs and formats as coding agents log
// them.

const B58: &str = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz";
const UPPER_HEX: &str = "0123456789ABCDEF";
const MIXED_HEX: &str = "0123456789abcdefABCDEF";
/// PHP session ids (5 bits per character).
const PHP_SID: &str = "0123456789abcdefghijklmnopqrstuv";
const SALESFORCE: &str = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._";
/// Words from the BIP-39 English list.
const BIP39: &[&str] = &[
    "abandon", "ability", "absorb", "access", "acoustic", "actress", "adapt", "advice", "afford",
    "airport", "alcohol", "alpha", "amateur", "anchor", "ankle", "antique", "april", "arctic",
    "artefact", "asthma", "auction", "avocado", "awkward", "banana", "cactus", "dolphin", "eagle",
    "fabric", "galaxy", "harvest", "jungle", "kitchen", "lemon", "marble", "napkin", "orange",
    "pencil", "quantum", "rabbit", "salmon", "tomato", "umbrella", "velvet", "walnut", "yellow",
    "zebra", "october", "guitar", "ripple", "sunset", "tissue", "voyage", "wisdom", "crystal",
];

fn random_bytes(rng: &mut Rng, n: usize) -> Vec<u8> {
    (0..n).map(|_| rng.next() as u8).collect()
}

/// Base64 of `n` random bytes (what `openssl rand -base64 n` prints).
fn random_b64(rng: &mut Rng, n: usize) -> String {
    let bytes = random_bytes(rng, n);
    base64(&bytes)
}

/// Base64 with `+`, `/` and `=` percent-encoded, as in a cookie value.
fn pct_b64(s: &str) -> String {
    s.replace('+', "%2B")
        .replace('/', "%2F")
        .replace('=', "%3D")
}

fn eth_key(rng: &mut Rng) -> String {
    rng.string(HEX, 64)
}

fn eth_address(rng: &mut Rng) -> String {
    format!("0x{}", rng.string(MIXED_HEX, 40))
}

fn mnemonic(rng: &mut Rng) -> String {
    (0..12)
        .map(|_| *rng.pick(BIP39))
        .collect::<Vec<_>>()
        .join(" ")
}

fn ngrok_token(rng: &mut Rng) -> String {
    format!(
        "{}{}_{}",
        rng.string("123456789", 1),
        rng.string(ALNUM, 26),
        rng.string(ALNUM, 21)
    )
}

fn age_secret(rng: &mut Rng) -> String {
    format!("AGE-SECRET-KEY-1{}", rng.string(BECH32, 58))
}

fn age_public(rng: &mut Rng) -> String {
    format!("age1{}", rng.string(&BECH32.to_lowercase(), 58))
}

/// A Discord bot token: the base64url bot id, a timestamp part, an HMAC.
fn discord_token(rng: &mut Rng) -> String {
    let n = rng.range(17, 18);
    let id = format!("1{}", rng.string(DIGITS, n));
    format!(
        "{}.{}.{}",
        base64url(id.as_bytes()),
        rng.string(URL, 6),
        rng.string(URL, 38)
    )
}

/// Splits a shell command into words, quotes removed, up to the first pipe,
/// redirection or `&&` (for argv contexts).
fn shell_words(cmd: &str) -> Vec<String> {
    let mut head = cmd;
    for stop in [" | ", " > ", " < ", " && ", " 2>"] {
        if let Some(i) = head.find(stop) {
            head = &head[..i];
        }
    }
    let mut words = Vec::new();
    let mut cur = String::new();
    let mut quote: Option<char> = None;
    let mut in_word = false;
    for c in head.chars() {
        match quote {
            Some(q) if c == q => quote = None,
            Some(_) => cur.push(c),
            None if c == '\'' || c == '"' => {
                quote = Some(c);
                in_word = true;
            }
            None if c.is_whitespace() => {
                if in_word {
                    words.push(std::mem::take(&mut cur));
                    in_word = false;
                }
            }
            None => {
                cur.push(c);
                in_word = true;
            }
        }
    }
    if in_word {
        words.push(cur);
    }
    words
}

/// A command (and its output) where agents write or run it (12 styles).
fn command_text(style: usize, cmd: &str, output: &str) -> String {
    let argv = || {
        shell_words(cmd)
            .iter()
            .map(|w| json_string(w))
            .collect::<Vec<_>>()
            .join(", ")
    };
    match style % 12 {
        0 => transcript(0, cmd, output, 0),
        1 => codex_call(cmd, style / 12),
        2 => transcript(1, cmd, output, 0),
        3 => claude_bash(cmd, output),
        4 => format!(
            "#!/usr/bin/env bash\nset -euo pipefail\n\necho \"==> syncing\"\n{cmd}\necho done\n"
        ),
        5 => format!(
            "    steps:\n      - uses: actions/checkout@v4\n      - name: Deploy\n        run: |\n          {cmd}\n"
        ),
        6 if style % 24 < 12 => format!("FROM debian:bookworm-slim\nRUN {cmd}\n"),
        6 => format!(".PHONY: deploy\ndeploy:\n\t{cmd}\n"),
        7 => format!(
            "import subprocess\n\nresult = subprocess.run([{}], capture_output=True, text=True, check=True)\nprint(result.stdout)\n",
            argv()
        ),
        8 if output.is_empty() => {
            format!("Can you check why `{cmd}` hangs on our staging box? It worked yesterday.")
        }
        8 => format!("When I run `{cmd}` I get:\n\n```\n{output}\n```\nWhat am I doing wrong?"),
        9 => transcript(2, cmd, output, 0),
        10 => transcript(6, cmd, output, 0),
        _ => format!(
            "\tcmd := exec.Command({})\n\tout, err := cmd.CombinedOutput()\n\tif err != nil {{\n\t\tlog.Fatalf(\"%s: %v\", out, err)\n\t}}",
            argv()
        ),
    }
}

/// Builds one command: the command line, what it printed, its secrets.
type CmdGen = fn(&mut Rng) -> (String, String, Vec<String>);

const WGET_OUT: &str = "Resolving repo.example.com (repo.example.com)... 10.0.4.12\nConnecting to repo.example.com (repo.example.com)|10.0.4.12|:443... connected.\nHTTP request sent, awaiting response... 200 OK\nLength: 18234567 (17M) [application/octet-stream]\nSaving to: 'app-1.4.2.tar.gz'\n\napp-1.4.2.tar.gz  100%[===================>]  17.39M  41.2MB/s    in 0.4s";
const MYSQL_OUT: &str = "mysql: [Warning] Using a password on the command line interface can be insecure.\n+--------------------+\n| Database           |\n+--------------------+\n| information_schema |\n| shop               |\n+--------------------+";
const REDIS_OUT: &str = "Warning: Using a password with '-a' or '-u' option on the command line interface may not be safe.\n# Keyspace\ndb0:keys=1532,expires=12,avg_ttl=0";
const DOCKER_OUT: &str =
    "WARNING! Using --password via the CLI is insecure. Use --password-stdin.\nLogin Succeeded";

/// Secrets passed as command-line arguments.
const CLI_ARGS: &[(&str, CmdGen)] = &[
    ("openssl_pass", |r| {
        let p = password(r);
        let cmd = match r.below(3) {
            0 => {
                format!("openssl enc -aes-256-cbc -pbkdf2 -salt -in db.tar -out db.tar.enc -k {p}")
            }
            1 => format!("openssl rsa -in server.key -passin pass:{p} -out server.plain.key"),
            _ => format!(
                "openssl pkcs12 -export -in cert.pem -inkey key.pem -out bundle.p12 -passout pass:{p}"
            ),
        };
        (cmd, String::new(), vec![p])
    }),
    ("rabbitmqctl_user", |r| {
        let p = password(r);
        let cmd = match r.below(2) {
            0 => format!(
                "rabbitmqctl add_user orders {p} && rabbitmqctl set_user_tags orders monitoring"
            ),
            _ => format!("rabbitmqctl change_password guest '{p}'"),
        };
        (cmd, "Adding user \"orders\" ...\nDone. Don't forget to grant the user permissions to some virtual hosts!".into(), vec![p])
    }),
    ("codecov_token", |r| {
        let t = format!(
            "{}-{}-4{}-{}-{}",
            r.string(HEX, 8),
            r.string(HEX, 4),
            r.string(HEX, 3),
            r.string(HEX, 4),
            r.string(HEX, 12)
        );
        let cmd = match r.below(2) {
            0 => format!("codecov upload-process -t {t} -f coverage.xml"),
            _ => format!("./codecov --token {t} --file lcov.info"),
        };
        (cmd, "info - Process Upload complete".into(), vec![t])
    }),
    ("wget_password", |r| {
        let p = password(r);
        let cmd = match r.below(4) {
            0 => format!(
                "wget --user=deploy --password='{p}' https://repo.example.com/releases/app-1.4.2.tar.gz"
            ),
            1 => format!(
                "wget --user admin --password {p} -O status.json https://nexus.example.com/service/rest/v1/status"
            ),
            2 => format!(
                "wget -q --http-user=ci --http-password={p} -r -np -nH https://artifacts.example.com/builds/latest/"
            ),
            _ => format!(
                "wget --ftp-user=backup --ftp-password=\"{p}\" ftp://ftp.example.com/dumps/shop.sql.gz"
            ),
        };
        (cmd, WGET_OUT.into(), vec![p])
    }),
    ("curl_user", |r| {
        let p = password(r);
        let (cmd, out) = match r.below(4) {
            0 => (
                format!(
                    "curl -fsSL -u admin:{p} https://jenkins.example.com/job/api/lastBuild/api/json"
                ),
                "{\"_class\":\"hudson.model.FreeStyleBuild\",\"number\":412,\"result\":\"SUCCESS\"}",
            ),
            1 => (
                format!(
                    "curl -u \"deploy:{p}\" -X PUT --upload-file target/app-1.0.jar https://nexus.example.com/repository/maven-releases/com/acme/app/1.0/app-1.0.jar"
                ),
                "",
            ),
            2 => (
                format!(
                    "curl --user elastic:'{p}' -k \"https://localhost:9200/_cluster/health?pretty\""
                ),
                "{\n  \"cluster_name\" : \"docker-cluster\",\n  \"status\" : \"green\",\n  \"number_of_nodes\" : 1\n}",
            ),
            _ => (
                format!(
                    "curl -su 'svc_ci:{p}' https://api.bitbucket.org/2.0/repositories/acme?pagelen=50 | jq '.values[].slug'"
                ),
                "\"api\"\n\"web\"\n\"infra\"",
            ),
        };
        (cmd, out.into(), vec![p])
    }),
    ("curl_proxy_user", |r| {
        let p = password(r);
        let cmd = match r.below(3) {
            0 => format!(
                "curl -x http://proxy.corp.example.com:3128 --proxy-user jdoe:{p} https://pypi.org/simple/requests/"
            ),
            1 => format!("curl --proxy http://10.0.0.1:8080 -U 'jdoe:{p}' -I https://github.com"),
            _ => format!(
                "curl --proxy-ntlm --proxy-user \"CORP\\\\svc_build:{p}\" -x proxy.corp:8080 -O https://nodejs.org/dist/v20.11.1/node-v20.11.1-linux-x64.tar.xz"
            ),
        };
        (
            cmd,
            "HTTP/1.1 200 Connection established\n\nHTTP/2 200\ncontent-type: text/html".into(),
            vec![p],
        )
    }),
    ("docker_login", |r| match r.below(3) {
        0 => {
            let p = password(r);
            (
                format!("docker login -u deploy -p {p} registry.example.com"),
                DOCKER_OUT.into(),
                vec![p],
            )
        }
        1 => {
            let p = password(r);
            (
                format!("docker login --username ci-bot --password '{p}' harbor.example.com"),
                DOCKER_OUT.into(),
                vec![p],
            )
        }
        _ => {
            let t = format!("eyJwYXlsb2FkIjoi{}", r.string(B64, 380));
            (
                format!("docker login -u AWS -p {t} 123456789012.dkr.ecr.us-east-1.amazonaws.com"),
                DOCKER_OUT.into(),
                vec![t],
            )
        }
    }),
    ("podman_login", |r| {
        let p = password(r);
        let cmd = match r.below(4) {
            0 => format!("podman login -u bot -p {p} quay.io"),
            1 => format!("podman login --username=svc-pull --password={p} registry.redhat.io"),
            2 => format!("buildah login -u ci -p '{p}' registry.gitlab.example.com"),
            _ => format!(
                "skopeo copy --src-creds ci:{p} docker://registry.example.com/api:1.4 docker-archive:api.tar"
            ),
        };
        (cmd, "Login Succeeded!".into(), vec![p])
    }),
    ("mysql_p", |r| {
        let p = password(r);
        let cmd = match r.below(5) {
            0 => format!("mysql -uroot -p{p} -e \"SHOW DATABASES;\""),
            1 => format!("mysql -h 127.0.0.1 -P 3306 -uapp -p'{p}' shop < migrations/001_init.sql"),
            2 => format!("mysql --user=root --password={p} -h db -e 'SELECT VERSION();'"),
            3 => format!("docker exec -i mysql8 mysql -uroot -p{p} shop < dump.sql"),
            _ => format!("mysqladmin -uroot -p\"{p}\" status"),
        };
        (cmd, MYSQL_OUT.into(), vec![p])
    }),
    ("mysqldump_p", |r| {
        let p = password(r);
        let cmd = match r.below(3) {
            0 => format!("mysqldump -uroot -p{p} --single-transaction --routines shop > shop.sql"),
            1 => format!(
                "mysqldump -h db.internal -u backup -p'{p}' --all-databases | gzip > all-$(date +%F).sql.gz"
            ),
            _ => format!("docker exec db mysqldump -u root --password={p} shop > backup.sql"),
        };
        (
            cmd,
            "mysqldump: [Warning] Using a password on the command line interface can be insecure."
                .into(),
            vec![p],
        )
    }),
    ("redis_cli_a", |r| {
        let p = password(r);
        match r.below(4) {
            0 => (
                format!("redis-cli -h redis.internal -p 6379 -a '{p}' INFO keyspace"),
                REDIS_OUT.into(),
                vec![p],
            ),
            1 => (
                format!(
                    "redis-cli -h master.cache.abc123.use1.cache.amazonaws.com --tls -a {p} --no-auth-warning KEYS 'session:*'"
                ),
                "1) \"session:9f2c\"\n2) \"session:a81e\"".into(),
                vec![p],
            ),
            2 => (
                format!("redis-cli --user app --pass {p} -n 2 DBSIZE"),
                "(integer) 4211".into(),
                vec![p],
            ),
            _ => (
                "redis-cli -h cache".into(),
                format!("cache:6379> AUTH {p}\nOK\ncache:6379> PING\nPONG"),
                vec![p],
            ),
        }
    }),
    ("mongosh_p", |r| {
        let p = password(r);
        let cmd = match r.below(4) {
            0 => format!(
                "mongosh \"mongodb://db.internal:27017/shop\" -u admin -p '{p}' --authenticationDatabase admin"
            ),
            1 => format!("mongo --username root --password {p} --eval 'db.stats()'"),
            2 => format!(
                "mongodump --host db --port 27017 -u backup -p {p} --authenticationDatabase admin --out /backups/nightly"
            ),
            _ => format!("mongosh --host db --port 27017 --username app --password={p} shop"),
        };
        (
            cmd,
            "Current Mongosh Log ID:\t65e5a1f0c2a4d1b8e7f3c901\nConnecting to:\t\tmongodb://<credentials>@db.internal:27017/shop\nUsing MongoDB:\t\t7.0.5".into(),
            vec![p],
        )
    }),
    ("sshpass", |r| {
        let p = password(r);
        let cmd = match r.below(3) {
            0 => format!("sshpass -p '{p}' ssh -o StrictHostKeyChecking=no root@10.0.3.7 uptime"),
            1 => {
                format!("sshpass -p {p} scp -P 2222 build.tar.gz deploy@bastion.example.com:/tmp/")
            }
            _ => format!("sshpass -p\"{p}\" rsync -avz -e ssh dist/ www@web01:/var/www/html/"),
        };
        (
            cmd,
            " 10:22:31 up 41 days,  3:12,  0 users,  load average: 0.08, 0.03, 0.01".into(),
            vec![p],
        )
    }),
    ("ldapsearch_w", |r| {
        let p = password(r);
        let cmd = match r.below(3) {
            0 => format!(
                "ldapsearch -x -H ldap://ldap.corp.example.com -D \"cn=admin,dc=example,dc=com\" -w '{p}' -b \"dc=example,dc=com\" \"(uid=jdoe)\""
            ),
            1 => format!("ldapadd -x -D cn=admin,dc=example,dc=org -w {p} -f users.ldif"),
            _ => format!(
                "ldapwhoami -x -H ldaps://dc01.corp.local -D 'svc_ldap@corp.local' -w \"{p}\""
            ),
        };
        (
            cmd,
            "# extended LDIF\n#\n# LDAPv3\n# search result\nsearch: 2\nresult: 0 Success".into(),
            vec![p],
        )
    }),
    ("sqlcmd_P", |r| {
        let p = password(r);
        let cmd = match r.below(3) {
            0 => format!(
                "sqlcmd -S localhost,1433 -U sa -P '{p}' -Q \"SELECT name FROM sys.databases\""
            ),
            1 => format!(
                "docker exec -it mssql /opt/mssql-tools18/bin/sqlcmd -S localhost -U sa -P \"{p}\" -C -i init.sql"
            ),
            _ => format!("bcp shop.dbo.orders out orders.csv -S db -U sa -P {p} -c"),
        };
        (
            cmd,
            "name\n--------------------\nmaster\ntempdb\nmodel\nmsdb\nshop\n\n(5 rows affected)"
                .into(),
            vec![p],
        )
    }),
    ("htpasswd_b", |r| {
        let p = password(r);
        match r.below(4) {
            0 => (
                format!("htpasswd -bc /etc/nginx/.htpasswd admin {p}"),
                "Adding password for user admin".into(),
                vec![p],
            ),
            1 => {
                let hash = format!("$apr1${}${}", r.string(ALNUM, 8), r.string(ALNUM, 22));
                (
                    format!("htpasswd -nb grafana '{p}'"),
                    format!("grafana:{hash}\n"),
                    vec![p],
                )
            }
            2 => (
                format!("htpasswd -Bbn ci {p} >> auth/htpasswd"),
                String::new(),
                vec![p],
            ),
            _ => (
                format!("docker run --rm httpd:2.4 htpasswd -Bbn registry \"{p}\" > auth/htpasswd"),
                String::new(),
                vec![p],
            ),
        }
    }),
    ("keytool_storepass", |r| {
        let (a, b) = (password(r), password(r));
        match r.below(4) {
            0 => (
                format!(
                    "keytool -genkeypair -alias app -keyalg RSA -keysize 2048 -validity 365 -keystore keystore.jks -storepass {a} -keypass {b} -dname \"CN=app.example.com, O=Acme\""
                ),
                String::new(),
                vec![a, b],
            ),
            1 => (
                format!(
                    "keytool -importcert -noprompt -alias corp-ca -file corp-ca.crt -keystore truststore.jks -storepass '{a}'"
                ),
                "Certificate was added to keystore".into(),
                vec![a],
            ),
            2 => (
                format!(
                    "keytool -list -v -keystore app.p12 -storetype PKCS12 -storepass {a} | head -5"
                ),
                "Keystore type: PKCS12\nKeystore provider: SUN\n\nYour keystore contains 1 entry".into(),
                vec![a],
            ),
            _ => (
                format!(
                    "keytool -importkeystore -srckeystore server.p12 -srcstoretype PKCS12 -srcstorepass {a} -destkeystore server.jks -deststorepass {b}"
                ),
                "Importing keystore server.p12 to server.jks...\nEntry for alias 1 successfully imported.".into(),
                vec![a, b],
            ),
        }
    }),
    ("7z_p", |r| {
        let p = password(r);
        let cmd = match r.below(3) {
            0 => format!("7z a -p{p} -mhe=on backup.7z ./secrets/"),
            1 => format!("7z x -p{p} backup-2025-03-01.7z -o./restore"),
            _ => format!("7za a -tzip -p'{p}' -mem=AES256 export.zip reports/"),
        };
        (
            cmd,
            "7-Zip [64] 16.02 : Copyright (c) 1999-2016 Igor Pavlov : 2016-05-21\n\nScanning the drive:\n1 folder, 4 files, 18231 bytes (18 KiB)\n\nEverything is Ok".into(),
            vec![p],
        )
    }),
    ("zip_P", |r| {
        let p = password(r);
        let cmd = match r.below(3) {
            0 => format!("zip -P {p} -r reports.zip reports/"),
            1 => format!("zip --password '{p}' customers.zip customers.csv"),
            _ => format!("unzip -P {p} -o reports.zip -d /tmp/reports"),
        };
        (
            cmd,
            "  adding: reports/ (stored 0%)\n  adding: reports/q1.csv (deflated 71%)".into(),
            vec![p],
        )
    }),
    ("smbclient_U", |r| {
        let p = password(r);
        let cmd = match r.below(4) {
            0 => format!("smbclient //fileserver/share -U 'jdoe%{p}' -c 'ls'"),
            1 => format!("smbclient -L //10.0.0.4 -U admin%{p}"),
            2 => format!("smbclient '//nas.local/backup' -U 'CORP/svc_backup%{p}' -c 'put db.bak'"),
            _ => format!(
                "sudo mount -t cifs //nas/backup /mnt/backup -o username=svc_backup,password={p},vers=3.0"
            ),
        };
        (
            cmd,
            "  .                                   D        0  Tue Mar  4 10:22:31 2025\n  ..                                  D        0  Mon Mar  3 09:00:00 2025".into(),
            vec![p],
        )
    }),
    ("ngrok_authtoken", |r| {
        let t = ngrok_token(r);
        match r.below(4) {
            0 => (
                format!("ngrok config add-authtoken {t}"),
                "Authtoken saved to configuration file: /home/dev/.config/ngrok/ngrok.yml".into(),
                vec![t],
            ),
            1 => (
                format!("ngrok authtoken {t}"),
                "Authtoken saved to configuration file: /Users/dev/.ngrok2/ngrok.yml".into(),
                vec![t],
            ),
            2 => (
                format!("ngrok http 3000 --authtoken {t}"),
                "Forwarding    https://4f2a-203-0-113-7.ngrok-free.app -> http://localhost:3000"
                    .into(),
                vec![t],
            ),
            _ => (
                format!(
                    "docker run --net=host -it -e NGROK_AUTHTOKEN={t} ngrok/ngrok:latest http 8080"
                ),
                String::new(),
                vec![t],
            ),
        }
    }),
    ("cast_private_key", |r| {
        let k = eth_key(r);
        let (to, from) = (eth_address(r), eth_address(r));
        match r.below(3) {
            0 => (
                format!(
                    "cast send {to} \"transfer(address,uint256)\" {from} 1000000 --rpc-url $SEPOLIA_RPC_URL --private-key 0x{k}"
                ),
                format!(
                    "blockNumber          5432101\nstatus               1 (success)\nfrom                 {from}"
                ),
                vec![k],
            ),
            1 => (
                format!("cast wallet address --private-key 0x{k}"),
                from,
                vec![k],
            ),
            _ => (
                format!(
                    "cast send --private-key {k} --rpc-url http://127.0.0.1:8545 {to} --value 1ether"
                ),
                String::new(),
                vec![k],
            ),
        }
    }),
    ("forge_private_key", |r| {
        let k = eth_key(r);
        let cmd = match r.below(2) {
            0 => format!(
                "forge script script/Deploy.s.sol:DeployScript --rpc-url sepolia --broadcast --verify --private-key {k}"
            ),
            _ => format!(
                "forge create src/Token.sol:Token --rpc-url http://localhost:8545 --private-key 0x{k} --constructor-args \"Acme\" \"ACM\""
            ),
        };
        (
            cmd,
            "[⠊] Compiling...\nNo files changed, compilation skipped\nScript ran successfully."
                .into(),
            vec![k],
        )
    }),
    ("mnemonic_flag", |r| {
        let m = mnemonic(r);
        let cmd = match r.below(3) {
            0 => format!("anvil --mnemonic \"{m}\" --accounts 5 --port 8545"),
            1 => format!("cast wallet address --mnemonic \"{m}\" --mnemonic-index 0"),
            _ => format!("npx ganache-cli --mnemonic '{m}' -p 8545 -i 1337"),
        };
        (cmd, "Listening on 127.0.0.1:8545".into(), vec![m])
    }),
    ("gh_secret_body", |r| match r.below(3) {
        0 => {
            let t = format!("npm_{}", checksummed(r));
            (
                format!("gh secret set NPM_TOKEN --body \"{t}\""),
                "✓ Set Actions secret NPM_TOKEN for acme/web".into(),
                vec![t],
            )
        }
        1 => {
            let p = password(r);
            (
                format!("gh secret set DB_PASSWORD --body '{p}' --repo acme/api"),
                "✓ Set Actions secret DB_PASSWORD for acme/api".into(),
                vec![p],
            )
        }
        _ => {
            let t = r.string(URL, 40);
            (
                format!("gh secret set DEPLOY_KEY -b\"{t}\" --env production"),
                "✓ Set Actions secret DEPLOY_KEY for acme/api".into(),
                vec![t],
            )
        }
    }),
    ("fly_secrets_set", |r| match r.below(3) {
        0 => {
            let p = password(r);
            (
                format!("fly secrets set DB_PASSWORD={p} -a acme-api"),
                "Updating existing machines in 'acme-api' with rolling strategy\n✔ [1/2] Machine 148ed193b95789 [app] update succeeded".into(),
                vec![p],
            )
        }
        1 => {
            let (k, w) = (r.string(HEX, 128), format!("whsec_{}", r.string(ALNUM, 32)));
            (
                format!("flyctl secrets set SECRET_KEY_BASE={k} STRIPE_WEBHOOK_SECRET={w}"),
                "Secrets are staged for the first deployment".into(),
                vec![k, w],
            )
        }
        _ => {
            let p = password(r);
            (
                format!(
                    "fly secrets set DATABASE_URL=\"postgres://app:{p}@acme-db.flycast:5432/app?sslmode=disable\""
                ),
                String::new(),
                vec![p],
            )
        }
    }),
    ("heroku_config_set", |r| match r.below(3) {
        0 => {
            let k = r.string(HEX, 128);
            (
                format!("heroku config:set SECRET_KEY_BASE={k} -a acme-web"),
                format!(
                    "Setting SECRET_KEY_BASE and restarting ⬢ acme-web... done, v42\nSECRET_KEY_BASE: {k}"
                ),
                vec![k],
            )
        }
        1 => {
            let p = password(r);
            (
                format!("heroku config:set DATABASE_PASSWORD='{p}' RAILS_ENV=production"),
                format!(
                    "Setting DATABASE_PASSWORD, RAILS_ENV and restarting ⬢ acme-web... done, v43\nDATABASE_PASSWORD: {p}\nRAILS_ENV:         production"
                ),
                vec![p],
            )
        }
        _ => {
            let k = r.string(HEX, 128);
            (
                "heroku config -a acme-web".into(),
                format!(
                    "=== acme-web Config Vars\nLANG:            en_US.UTF-8\nRACK_ENV:        production\nSECRET_KEY_BASE: {k}"
                ),
                vec![k],
            )
        }
    }),
];

fn cli_args(rng: &mut Rng, out: &mut Vec<Positive>) {
    for (i, (kind, make)) in CLI_ARGS.iter().enumerate() {
        for k in 0..4 {
            let (cmd, output, secrets) = make(rng);
            out.push(Positive {
                family: "cli_args",
                kind,
                text: command_text(i * 5 + k * 7, &cmd, &output),
                secrets,
            });
        }
    }
}

/// Wallet keys in files and code (no command around them).
fn wallet_files(rng: &mut Rng, out: &mut Vec<Positive>) {
    for i in 0..10 {
        let k = eth_key(rng);
        let text = match i % 5 {
            0 => format!(
                "# .env\nPRIVATE_KEY=0x{k}\nSEPOLIA_RPC_URL=https://ethereum-sepolia-rpc.publicnode.com\nCHAIN_ID=11155111\n"
            ),
            1 => format!("$ cat .env\nDEPLOYER_PRIVATE_KEY={k}\nETHERSCAN_VERIFY=true\n$ "),
            2 => format!(
                "const config: HardhatUserConfig = {{\n  solidity: \"0.8.24\",\n  networks: {{\n    sepolia: {{\n      url: \"https://rpc.sepolia.org\",\n      accounts: [\"0x{k}\"],\n    }},\n  }},\n}};"
            ),
            3 => format!(
                "from web3 import Web3, Account\n\nacct = Account.from_key(\"0x{k}\")\nprint(acct.address)\n"
            ),
            _ => format!(
                "const provider = new ethers.JsonRpcProvider(RPC_URL);\nconst wallet = new ethers.Wallet(\"0x{k}\", provider);"
            ),
        };
        out.push(Positive {
            family: "crypto",
            kind: "eth_private_key_file",
            text,
            secrets: vec![k],
        });
    }
    for i in 0..8 {
        let m = mnemonic(rng);
        let text = match i % 4 {
            0 => format!("MNEMONIC=\"{m}\"\nINFURA_PROJECT_ID=demo\n"),
            1 => format!(
                "networks: {{\n  hardhat: {{\n    accounts: {{ mnemonic: \"{m}\" }},\n  }},\n}},"
            ),
            2 => format!("export SEED_PHRASE='{m}'\nnpm run deploy:testnet"),
            _ => format!("const wallet = ethers.Wallet.fromPhrase(\"{m}\");"),
        };
        out.push(Positive {
            family: "crypto",
            kind: "mnemonic_file",
            text,
            secrets: vec![m],
        });
    }
    for i in 0..8 {
        let a = age_secret(rng);
        let public = age_public(rng);
        let keys = format!("# created: 2025-03-04T10:22:31+01:00\n# public key: {public}\n{a}");
        let text = match i % 8 {
            0 => a.clone(),
            1 => transcript(0, "age-keygen", &keys, 0),
            2 => transcript(1, "cat ~/.config/sops/age/keys.txt", &keys, 0),
            3 => format!("SOPS_AGE_KEY={a}\n"),
            4 => format!(
                "      - name: Decrypt secrets\n        env:\n          SOPS_AGE_KEY: {a}\n        run: sops -d secrets.enc.yaml > secrets.yaml"
            ),
            5 => transcript(3, "age-keygen -o key.txt && cat key.txt", &keys, 0),
            6 => format!("$ echo \"{a}\" | age -d -i - secrets.tar.age > secrets.tar"),
            _ => format!("Here's the key from my laptop, I'll rotate it after the demo:\n\n{a}\n"),
        };
        out.push(Positive {
            family: "crypto",
            kind: "age_secret_key",
            text,
            secrets: vec![a],
        });
    }
}

/// Commands whose output is a secret.
const PRINTED: &[(&str, CmdGen)] = &[
    ("aws_configure_get_secret", |r| {
        let k = r.string(B64, 40);
        (
            "aws configure get aws_secret_access_key --profile prod".into(),
            k.clone(),
            vec![k],
        )
    }),
    ("rails_master_key", |r| {
        let k = r.string(HEX, 32);
        ("cat config/master.key".into(), k.clone(), vec![k])
    }),
    ("rails_credentials_key", |r| {
        let k = r.string(HEX, 32);
        let cmd = match r.below(2) {
            0 => "cat config/credentials/production.key",
            _ => "cat config/credentials/staging.key",
        };
        (cmd.into(), k.clone(), vec![k])
    }),
    ("laravel_app_key", |r| {
        let k = random_b64(r, 32);
        (
            "php artisan key:generate --show".into(),
            format!("base64:{k}"),
            vec![k],
        )
    }),
    ("openssl_rand_hex", |r| {
        let n = *r.pick(&[16usize, 32, 32, 64]);
        let k = r.string(HEX, n * 2);
        (format!("openssl rand -hex {n}"), k.clone(), vec![k])
    }),
    ("openssl_rand_base64", |r| {
        let n = *r.pick(&[32usize, 48, 64]);
        let k = random_b64(r, n);
        (format!("openssl rand -base64 {n}"), k.clone(), vec![k])
    }),
    ("python_secrets", |r| match r.below(2) {
        0 => {
            let k = r.string(URL, 43);
            (
                "python3 -c \"import secrets; print(secrets.token_urlsafe(32))\"".into(),
                k.clone(),
                vec![k],
            )
        }
        _ => {
            let k = r.string(HEX, 64);
            (
                "python -c 'import secrets; print(secrets.token_hex(32))'".into(),
                k.clone(),
                vec![k],
            )
        }
    }),
    ("node_random_bytes", |r| {
        let k = random_b64(r, 32);
        (
            "node -e \"console.log(require('crypto').randomBytes(32).toString('base64'))\"".into(),
            k.clone(),
            vec![k],
        )
    }),
    ("wg_genkey", |r| {
        let k = random_b64(r, 32);
        let cmd = match r.below(2) {
            0 => "wg genkey",
            _ => "wg genkey | tee /etc/wireguard/privatekey",
        };
        (cmd.into(), k.clone(), vec![k])
    }),
    ("rails_secret", |r| {
        let k = r.string(HEX, 128);
        let cmd = *r.pick(&[
            "bin/rails secret",
            "rails secret",
            "bundle exec rake secret",
        ]);
        (cmd.into(), k.clone(), vec![k])
    }),
    ("op_read", |r| {
        let p = password(r);
        let cmd = *r.pick(&[
            "op read op://Production/Postgres/password",
            "op read \"op://Engineering/AWS RDS/password\"",
            "op item get \"Staging DB\" --fields label=password --reveal",
        ]);
        (cmd.into(), p.clone(), vec![p])
    }),
    ("printenv", |r| {
        let p = password(r);
        let cmd = *r.pick(&[
            "printenv DB_PASSWORD",
            "echo $POSTGRES_PASSWORD",
            "printenv | grep -i pass",
        ]);
        let output = if cmd.contains("grep") {
            format!("POSTGRES_PASSWORD={p}")
        } else {
            p.clone()
        };
        (cmd.into(), output, vec![p])
    }),
    ("vault_field", |r| {
        let p = password(r);
        (
            "vault kv get -field=password secret/prod/db".into(),
            p.clone(),
            vec![p],
        )
    }),
    ("k8s_secret_decode", |r| {
        let p = password(r);
        (
            "kubectl get secret db-credentials -n prod -o jsonpath='{.data.password}' | base64 -d"
                .into(),
            p.clone(),
            vec![p],
        )
    }),
    ("aws_secretsmanager", |r| {
        let p = password(r);
        (
            "aws secretsmanager get-secret-value --secret-id prod/shop/db --query SecretString --output text".into(),
            format!("{{\"username\":\"shop\",\"password\":\"{p}\",\"host\":\"shop.cluster-c9x.eu-west-1.rds.amazonaws.com\",\"port\":5432}}"),
            vec![p],
        )
    }),
    ("gcloud_secret", |r| {
        let k = r.string(URL, 40);
        (
            "gcloud secrets versions access latest --secret=webhook-signing-key".into(),
            k.clone(),
            vec![k],
        )
    }),
    ("heroku_config_get", |r| {
        let k = r.string(HEX, 128);
        (
            "heroku config:get SECRET_KEY_BASE -a acme-web".into(),
            k.clone(),
            vec![k],
        )
    }),
    ("urandom_base64", |r| {
        let k = random_b64(r, 32);
        (
            "head -c 32 /dev/urandom | base64".into(),
            k.clone(),
            vec![k],
        )
    }),
];

fn printed_secrets(rng: &mut Rng, out: &mut Vec<Positive>) {
    for (i, (kind, make)) in PRINTED.iter().enumerate() {
        for k in 0..4 {
            let (cmd, output, secrets) = make(rng);
            out.push(Positive {
                family: "printed_secrets",
                kind,
                text: transcript(i * 3 + k * 2, &cmd, &output, 0),
                secrets,
            });
        }
    }
}

/// Connection strings and credential files outside URL syntax.
const CONN: &[(&str, CmdGen)] = &[
    ("oracle_jdbc_service", |r| {
        let p = password(r);
        let text = match r.below(4) {
            0 => format!(
                "spring.datasource.url=jdbc:oracle:thin:app/{p}@//db.example.com:1521/ORCLPDB1\nspring.datasource.driver-class-name=oracle.jdbc.OracleDriver"
            ),
            1 => format!(
                "Connection conn = DriverManager.getConnection(\"jdbc:oracle:thin:scott/{p}@//10.0.2.15:1521/XEPDB1\");"
            ),
            2 => format!(
                "datasource:\n  url: jdbc:oracle:thin:report/{p}@//oracle-prod.internal:1521/REPORTS\n  hikari:\n    maximum-pool-size: 10\n"
            ),
            _ => codex_call(
                &format!(
                    "java -jar build/libs/app.jar --spring.datasource.url='jdbc:oracle:thin:app/{p}@//db:1521/ORCL'"
                ),
                0,
            ),
        };
        (text, String::new(), vec![p])
    }),
    ("oracle_jdbc_sid", |r| {
        let p = password(r);
        let text = match r.below(3) {
            0 => format!("db.url=jdbc:oracle:thin:app/{p}@db01.internal:1521:ORCL"),
            1 => format!(
                "<property name=\"url\" value=\"jdbc:oracle:thin:batch/{p}@10.20.0.7:1521:PROD\"/>"
            ),
            _ => format!("ORACLE_URL=jdbc:oracle:thin:hr/{p}@localhost:1521:XE\n"),
        };
        (text, String::new(), vec![p])
    }),
    ("sqlplus", |r| {
        let p = password(r);
        let (cmd, output) = match r.below(4) {
            0 => (
                format!("sqlplus system/{p}@//localhost:1521/XEPDB1"),
                "SQL*Plus: Release 21.0.0.0.0 - Production on Tue Mar 4 10:22:31 2025\n\nConnected to:\nOracle Database 21c Express Edition Release 21.0.0.0.0 - Production",
            ),
            1 => (
                format!("sqlplus -s app/{p}@PRODDB @deploy/001_tables.sql"),
                "Table created.\n\nTable created.",
            ),
            2 => (
                format!("echo 'select 1 from dual;' | sqlplus -S hr/\"{p}\"@//db:1521/orcl"),
                "         1\n----------\n         1",
            ),
            _ => (
                format!("sqlplus 'sys/{p}@//db:1521/ORCL as sysdba'"),
                "Connected.",
            ),
        };
        (
            transcript(r.below(7), &cmd, output, 0),
            String::new(),
            vec![p],
        )
    }),
    ("rman_expdp", |r| {
        let (p, q) = (password(r), password(r));
        let (cmd, secrets) = match r.below(4) {
            0 => (format!("rman target sys/{p}@prod"), vec![p]),
            1 => (
                format!("rman target sys/{p}@prod catalog rcat_owner/{q}@rcat"),
                vec![p, q],
            ),
            2 => (
                format!(
                    "expdp system/{p}@ORCL schemas=APP directory=DATA_PUMP_DIR dumpfile=app.dmp logfile=exp.log"
                ),
                vec![p],
            ),
            _ => (
                format!(
                    "impdp system/{p}@//db:1521/ORCLPDB1 schemas=APP remap_schema=APP:APP_TEST dumpfile=app.dmp"
                ),
                vec![p],
            ),
        };
        (
            command_text(
                r.below(12),
                &cmd,
                "Recovery Manager: Release 19.0.0.0.0 - Production\n\nconnected to target database: PROD (DBID=1234567890)",
            ),
            String::new(),
            secrets,
        )
    }),
    ("go_mysql_dsn", |r| {
        let p = password(r);
        let text = match r.below(6) {
            0 => format!(
                "db, err := sql.Open(\"mysql\", \"app:{p}@tcp(127.0.0.1:3306)/shop?parseTime=true\")\nif err != nil {{\n\tlog.Fatal(err)\n}}"
            ),
            1 => format!(
                "MYSQL_DSN=app:{p}@tcp(mysql:3306)/shop?charset=utf8mb4&parseTime=True&loc=Local\n"
            ),
            2 => format!("\tdsn := \"root:{p}@unix(/tmp/mysql.sock)/app?parseTime=true\""),
            3 => format!(
                "db, err := gorm.Open(mysql.Open(\"gorm:{p}@tcp(localhost:9910)/gorm?charset=utf8&parseTime=True&loc=Local\"), &gorm.Config{{}})"
            ),
            4 => format!("database:\n  driver: mysql\n  dsn: \"app:{p}@tcp(db:3306)/shop\"\n"),
            _ => format!(
                "$ migrate -path db/migrations -database \"mysql://app:{p}@tcp(localhost:3306)/shop\" up\n1/u create_users (18.2ms)"
            ),
        };
        (text, String::new(), vec![p])
    }),
    ("go_mysql_dsn_socket", |r| {
        let p = password(r);
        let text = match r.below(2) {
            0 => format!("DB_DSN='app:{p}@unix(/var/run/mysqld/mysqld.sock)/shop'\n"),
            _ => format!(
                "cfg.DSN = \"wp:{p}@unix(/cloudsql/acme-prod:europe-west1:shop)/wordpress\""
            ),
        };
        (text, String::new(), vec![p])
    }),
    ("netrc_oneline", |r| {
        let p = password(r);
        let text = match r.below(3) {
            0 => format!("$ cat ~/.netrc\nmachine git.example.com login jdoe password {p}\n$ "),
            1 => format!(
                "echo \"machine api.example.com login ci password {p}\" >> ~/.netrc && chmod 600 ~/.netrc"
            ),
            _ => format!(
                "RUN echo \"machine gitlab.example.com login gitlab-ci-token password {p}\" > /root/.netrc"
            ),
        };
        (text, String::new(), vec![p])
    }),
    ("netrc_multiline", |r| match r.below(3) {
        0 => {
            let (a, b) = (uuid(r), uuid(r));
            (
                format!(
                    "$ cat ~/.netrc\nmachine api.heroku.com\n  login me@example.com\n  password {a}\nmachine git.heroku.com\n  login me@example.com\n  password {b}\n"
                ),
                String::new(),
                vec![a, b],
            )
        }
        1 => {
            let p = password(r);
            (
                transcript(
                    1,
                    "cat ~/.netrc",
                    &format!("machine artifactory.example.com\nlogin deploy\npassword {p}\n"),
                    0,
                ),
                String::new(),
                vec![p],
            )
        }
        _ => {
            let p = password(r);
            (
                format!("machine ftp.example.com\n\tlogin backup\n\tpassword {p}\n"),
                String::new(),
                vec![p],
            )
        }
    }),
    ("pgpass", |r| {
        let (p, q) = (password(r), password(r));
        match r.below(3) {
            0 => (
                transcript(
                    r.below(7),
                    "cat ~/.pgpass",
                    &format!("db.internal:5432:shop:app:{p}\n*:*:*:replicator:{q}"),
                    0,
                ),
                String::new(),
                vec![p, q],
            ),
            1 => (
                format!(
                    "$ echo \"localhost:5432:*:postgres:{p}\" > ~/.pgpass && chmod 600 ~/.pgpass"
                ),
                String::new(),
                vec![p],
            ),
            _ => (
                format!("$ cat .pgpass\n127.0.0.1:5432:analytics:readonly:{p}\n"),
                String::new(),
                vec![p],
            ),
        }
    }),
];

fn conn_strings(rng: &mut Rng, out: &mut Vec<Positive>) {
    for (kind, make) in CONN {
        for _ in 0..3 {
            let (text, _, secrets) = make(rng);
            out.push(Positive {
                family: "connection_strings",
                kind,
                text,
                secrets,
            });
        }
    }
}

/// Passwords and keys in config files, manifests and SQL.
const CONFIGS: &[(&str, CmdGen)] = &[
    ("piped_password_stdin", |r| {
        let p = password(r);
        let cmd = match r.below(3) {
            0 => format!("echo '{p}' | sudo -S systemctl restart nginx"),
            1 => format!("echo \"{p}\" | docker login -u ci --password-stdin registry.example.com"),
            _ => format!("printf '%s' '{p}' | helm registry login ghcr.io -u bot --password-stdin"),
        };
        (
            transcript(1, &cmd, "Login Succeeded", 0),
            String::new(),
            vec![p],
        )
    }),
    ("jwk_private", |r| {
        let (x, d) = (r.string(URL, 43), r.string(URL, 43));
        let text = match r.below(2) {
            0 => format!(
                "{{\n  \"kty\": \"EC\",\n  \"crv\": \"P-256\",\n  \"x\": \"{x}\",\n  \"y\": \"{}\",\n  \"d\": \"{d}\",\n  \"kid\": \"sig-1\"\n}}",
                r.string(URL, 43)
            ),
            _ => format!(
                "{{\"keys\": [{{\"kty\": \"OKP\", \"crv\": \"Ed25519\", \"x\": \"{x}\", \"d\": \"{d}\"}}]}}"
            ),
        };
        (text, String::new(), vec![d])
    }),
    ("putty_ppk", |r| {
        let private = r.string(B64, 64);
        let text = format!(
            "PuTTY-User-Key-File-3: ssh-ed25519\nEncryption: none\nComment: eddsa-key-20250301\nPublic-Lines: 2\n{}\n{}\nPrivate-Lines: 1\n{private}\nPrivate-MAC: {}",
            r.string(B64, 64),
            r.string(B64, 4),
            r.string(HEX, 64)
        );
        (text, String::new(), vec![private])
    }),
    ("builder_password", |r| {
        let p = password(r);
        let text = match r.below(2) {
            0 => format!(
                "let opts = PgConnectOptions::new().host(\"db\").username(\"app\").password(\"{p}\");"
            ),
            _ => format!("client = Redis::Client.builder().host('cache').password('{p}').build()"),
        };
        (text, String::new(), vec![p])
    }),
    ("typed_const_secret", |r| {
        let k = r.string(HEX, 64);
        let text = match r.below(2) {
            0 => format!("pub const HMAC_SECRET: &str = \"{k}\";"),
            _ => format!("const signingSecret: string = \"{k}\";"),
        };
        (text, String::new(), vec![k])
    }),
    ("prose_password", |r| {
        let p = format!(
            "{}{}#{}",
            r.string(LETTERS, 6),
            r.string(DIGITS, 3),
            r.string(ALNUM, 4)
        );
        let text = match r.below(2) {
            0 => format!("the staging db password is {p}, user is app. can you run the migration?"),
            _ => format!("FYI the admin password is `{p}` until we rotate it"),
        };
        (text, String::new(), vec![p])
    }),
    ("pagerduty_routing_key", |r| {
        let k = r.string(HEX, 32);
        let text = format!(
            "receivers:\n  - name: oncall\n    pagerduty_configs:\n      - routing_key: {k}\n        severity: critical"
        );
        (text, String::new(), vec![k])
    }),
    ("xml_password", |r| {
        let p = password(r);
        let text = match r.below(3) {
            0 => format!(
                "<datasource jndi-name=\"java:/ShopDS\" pool-name=\"ShopDS\">\n    <connection-url>jdbc:postgresql://db:5432/shop</connection-url>\n    <security>\n        <user-name>app</user-name>\n        <password>{p}</password>\n    </security>\n</datasource>"
            ),
            1 => format!(
                "<smtp>\n  <host>smtp.example.com</host>\n  <port>587</port>\n  <username>alerts@example.com</username>\n  <password>{p}</password>\n</smtp>"
            ),
            _ => transcript(
                1,
                "grep -n -A2 '<user>' conf/jetty-realm.xml",
                &format!(
                    "14:    <user>admin</user>\n15:    <password>{p}</password>\n16:    <roles>admin</roles>"
                ),
                0,
            ),
        };
        (text, String::new(), vec![p])
    }),
    ("xml_dotted_password", |r| {
        let p = password(r);
        let text = match r.below(2) {
            0 => format!(
                "<properties>\n    <java.version>17</java.version>\n    <db.user>app</db.user>\n    <db.password>{p}</db.password>\n</properties>"
            ),
            _ => format!(
                "<profile>\n  <id>local</id>\n  <properties>\n    <jdbc.url>jdbc:mysql://localhost:3306/shop</jdbc.url>\n    <jdbc.password>{p}</jdbc.password>\n  </properties>\n</profile>"
            ),
        };
        (text, String::new(), vec![p])
    }),
    ("maven_settings", |r| {
        let p = password(r);
        let xml = format!(
            "<settings>\n  <servers>\n    <server>\n      <id>nexus-releases</id>\n      <username>deploy</username>\n      <password>{p}</password>\n    </server>\n  </servers>\n</settings>"
        );
        let text = match r.below(2) {
            0 => transcript(r.below(7), "cat ~/.m2/settings.xml", &xml, 0),
            _ => xml,
        };
        (text, String::new(), vec![p])
    }),
    ("dotnet_add_key", |r| match r.below(3) {
        0 => {
            let p = password(r);
            (
                format!(
                    "<appSettings>\n    <add key=\"DbPassword\" value=\"{p}\" />\n    <add key=\"SmtpHost\" value=\"smtp.example.com\" />\n</appSettings>"
                ),
                String::new(),
                vec![p],
            )
        }
        1 => {
            let t = r.string(ALNUM, 32);
            (
                format!("  <add key=\"ApiKey\" value=\"{t}\"/>"),
                String::new(),
                vec![t],
            )
        }
        _ => {
            let k = format!("{}==", r.string(B64, 86));
            (
                format!(
                    "<appSettings>\n  <add key=\"StorageAccountName\" value=\"acmeprod\" />\n  <add key=\"StorageAccountKey\" value=\"{k}\" />\n</appSettings>"
                ),
                String::new(),
                vec![k],
            )
        }
    }),
    ("xml_property", |r| {
        let p = password(r);
        let text = match r.below(4) {
            0 => format!(
                "<property name=\"db.user\" value=\"app\"/>\n<property name=\"db.password\" value=\"{p}\"/>"
            ),
            1 => format!(
                "<bean id=\"dataSource\" class=\"com.zaxxer.hikari.HikariDataSource\">\n    <property name=\"username\" value=\"app\" />\n    <property name=\"password\" value=\"{p}\" />\n</bean>"
            ),
            2 => format!(
                "<property name=\"hibernate.connection.username\">app</property>\n<property name=\"hibernate.connection.password\">{p}</property>"
            ),
            _ => format!(
                "<Resource name=\"jdbc/AppDB\" auth=\"Container\" type=\"javax.sql.DataSource\"\n          username=\"app\" password=\"{p}\"\n          driverClassName=\"org.postgresql.Driver\"\n          url=\"jdbc:postgresql://db:5432/app\"/>"
            ),
        };
        (text, String::new(), vec![p])
    }),
    ("hadoop_site_xml", |r| match r.below(3) {
        0 => {
            let (id, s) = (
                format!("AKIA{}", r.string(UPPER_DIGIT, 16)),
                r.string(B64, 40),
            );
            (
                format!(
                    "<configuration>\n  <property>\n    <name>fs.s3a.access.key</name>\n    <value>{id}</value>\n  </property>\n  <property>\n    <name>fs.s3a.secret.key</name>\n    <value>{s}</value>\n  </property>\n</configuration>"
                ),
                String::new(),
                vec![id, s],
            )
        }
        1 => {
            let k = format!("{}==", r.string(B64, 86));
            (
                format!(
                    "<property>\n  <name>fs.azure.account.key.acmelake.dfs.core.windows.net</name>\n  <value>{k}</value>\n</property>"
                ),
                String::new(),
                vec![k],
            )
        }
        _ => {
            let p = password(r);
            (
                format!(
                    "<property>\n  <name>javax.jdo.option.ConnectionPassword</name>\n  <value>{p}</value>\n</property>"
                ),
                String::new(),
                vec![p],
            )
        }
    }),
    ("k8s_env_value", |r| {
        let p = password(r);
        let text = match r.below(4) {
            0 => format!(
                "        env:\n          - name: DB_HOST\n            value: postgres.prod.svc\n          - name: DB_PASSWORD\n            value: {p}\n"
            ),
            1 => format!("- name: DB_PASSWORD\n  value: \"{p}\"\n- name: DB_POOL\n  value: \"10\""),
            2 => format!(
                "    env:\n    - name: API_TOKEN\n      value: '{p}'\n    - name: LOG_LEVEL\n      value: info\n"
            ),
            _ => format!(
                "$ kubectl set env deployment/api DB_PASSWORD={p} -n prod\ndeployment.apps/api env updated"
            ),
        };
        (text, String::new(), vec![p])
    }),
    ("ecs_env", |r| {
        let t = r.string(ALNUM, 40);
        let text = match r.below(3) {
            0 => format!(
                "\"environment\": [\n  {{\"name\": \"API_TOKEN\", \"value\": \"{t}\"}},\n  {{\"name\": \"LOG_LEVEL\", \"value\": \"info\"}}\n]"
            ),
            1 => transcript(
                0,
                "aws ecs describe-task-definition --task-definition api:42 --query 'taskDefinition.containerDefinitions[0].environment'",
                &format!(
                    "[\n    {{\n        \"name\": \"DB_PASSWORD\",\n        \"value\": \"{t}\"\n    }},\n    {{\n        \"name\": \"PORT\",\n        \"value\": \"8080\"\n    }}\n]"
                ),
                0,
            ),
            _ => transcript(
                4,
                "aws lambda get-function-configuration --function-name thumbnailer",
                &format!(
                    "{{\n    \"FunctionName\": \"thumbnailer\",\n    \"Environment\": {{\n        \"Variables\": {{\n            \"STRIPE_KEY\": \"{t}\",\n            \"STAGE\": \"prod\"\n        }}\n    }}\n}}"
                ),
                0,
            ),
        };
        (text, String::new(), vec![t])
    }),
    ("ssm_parameter", |r| {
        let p = password(r);
        let text = match r.below(3) {
            0 => transcript(
                r.below(7),
                "aws ssm get-parameter --name /prod/db/password --with-decryption",
                &format!(
                    "{{\n    \"Parameter\": {{\n        \"Name\": \"/prod/db/password\",\n        \"Type\": \"SecureString\",\n        \"Value\": \"{p}\",\n        \"Version\": 3,\n        \"ARN\": \"arn:aws:ssm:eu-west-1:123456789012:parameter/prod/db/password\"\n    }}\n}}"
                ),
                0,
            ),
            1 => format!(
                "$ aws ssm put-parameter --name /prod/db/password --type SecureString --value '{p}' --overwrite\n{{\n    \"Version\": 4,\n    \"Tier\": \"Standard\"\n}}"
            ),
            _ => format!(
                "{{\"Parameters\": [{{\"Name\": \"/prod/db/host\", \"Type\": \"String\", \"Value\": \"db.internal\"}}, {{\"Name\": \"/prod/db/password\", \"Type\": \"SecureString\", \"Value\": \"{p}\"}}]}}"
            ),
        };
        (text, String::new(), vec![p])
    }),
    ("sql_identified_by", |r| {
        let p = password(r);
        let text = match r.below(5) {
            0 => format!(
                "CREATE USER 'app'@'%' IDENTIFIED BY '{p}';\nGRANT ALL PRIVILEGES ON shop.* TO 'app'@'%';"
            ),
            1 => format!(
                "mysql> ALTER USER 'root'@'localhost' IDENTIFIED BY '{p}';\nQuery OK, 0 rows affected (0.01 sec)"
            ),
            2 => format!("CREATE USER app IDENTIFIED BY \"{p}\" DEFAULT TABLESPACE users;"),
            3 => format!("GRANT ALL ON shop.* TO 'app'@'localhost' IDENTIFIED BY '{p}';"),
            _ => format!("CREATE LOGIN app_login WITH PASSWORD = '{p}', CHECK_POLICY = OFF;"),
        };
        (text, String::new(), vec![p])
    }),
    ("sql_role_password", |r| {
        let p = password(r);
        let text = match r.below(4) {
            0 => format!("ALTER ROLE app WITH LOGIN PASSWORD '{p}';"),
            1 => format!(
                "-- migrations/0003_readonly.sql\nCREATE ROLE readonly LOGIN PASSWORD '{p}';\nGRANT SELECT ON ALL TABLES IN SCHEMA public TO readonly;"
            ),
            2 => codex_call(
                &format!(
                    "psql -h localhost -U postgres -c \"CREATE USER app WITH ENCRYPTED PASSWORD '{p}';\""
                ),
                1,
            ),
            _ => format!("shop=# ALTER USER replicator PASSWORD '{p}';\nALTER ROLE"),
        };
        (text, String::new(), vec![p])
    }),
    ("redis_requirepass", |r| {
        let p = password(r);
        let text = match r.below(4) {
            0 => {
                format!("# redis.conf\nbind 0.0.0.0\nport 6379\nrequirepass {p}\nmaxmemory 256mb\n")
            }
            1 => format!("replicaof 10.0.0.5 6379\nmasterauth {p}\n"),
            2 => format!("127.0.0.1:6379> CONFIG SET requirepass \"{p}\"\nOK"),
            _ => format!(
                "  redis:\n    image: redis:7-alpine\n    command: redis-server --requirepass {p} --appendonly yes\n"
            ),
        };
        (text, String::new(), vec![p])
    }),
];

fn config_files(rng: &mut Rng, out: &mut Vec<Positive>) {
    for (kind, make) in CONFIGS {
        for _ in 0..3 {
            let (text, _, secrets) = make(rng);
            out.push(Positive {
                family: "config_files",
                kind,
                text,
                secrets,
            });
        }
    }
}

/// Where a session cookie is seen (name, value).
const COOKIE_CONTEXTS: &[Context] = &[
    |n, v| {
        format!(
            "$ curl -s -b '{n}={v}' https://app.example.com/api/me | jq .email\n\"jdoe@example.com\""
        )
    },
    |n, v| {
        format!("curl --cookie \"{n}={v}\" https://app.example.com/admin/export.csv -o export.csv")
    },
    |n, v| {
        format!(
            "> GET /dashboard HTTP/2\n> Host: app.example.com\n> Cookie: {n}={v}; theme=dark\n> user-agent: curl/8.5.0\n> accept: */*"
        )
    },
    |n, v| {
        format!(
            "< HTTP/1.1 302 Found\n< Location: /dashboard\n< Set-Cookie: {n}={v}; Path=/; HttpOnly; Secure; SameSite=Lax\n< Content-Length: 0"
        )
    },
    |n, v| {
        format!(
            "r = requests.get(\"https://app.example.com/api/orders\", cookies={{\"{n}\": \"{v}\"}}, timeout=10)\nr.raise_for_status()"
        )
    },
    |n, v| {
        format!(
            "const res = await fetch(\"https://app.example.com/api/me\", {{\n  headers: {{ Cookie: \"{n}={v}\" }},\n}});"
        )
    },
    |n, v| {
        format!(
            "await context.addCookies([{{ name: \"{n}\", value: \"{v}\", domain: \"app.example.com\", path: \"/\" }}]);"
        )
    },
    |n, v| {
        format!(
            "\"cookies\": [\n  {{\"name\": \"{n}\", \"value\": \"{v}\", \"path\": \"/\", \"domain\": \"app.example.com\", \"httpOnly\": true, \"secure\": true}}\n]"
        )
    },
    |n, v| {
        codex_call(
            &format!("curl -sS -b \"{n}={v}\" http://localhost:3000/api/session"),
            0,
        )
    },
    |n, v| {
        format!(
            "I logged in and copied the cookie from devtools ({n}={v}) but the API still returns 401, any idea?"
        )
    },
];

type CookieGen = fn(&mut Rng) -> (String, Vec<String>);

const COOKIES: &[(&str, &str, CookieGen)] = &[
    ("connect_sid", "connect.sid", |r| {
        let (sid, sig) = (r.string(URL, 32), r.string(ALNUM, 43));
        (format!("s%3A{sid}.{sig}"), vec![sid, sig])
    }),
    ("django_sessionid", "sessionid", |r| {
        let v = r.string(LOWER_DIGIT, 32);
        (v.clone(), vec![v])
    }),
    ("phpsessid", "PHPSESSID", |r| {
        let v = r.string(PHP_SID, 26);
        (v.clone(), vec![v])
    }),
    ("jsessionid", "JSESSIONID", |r| {
        let v = r.string(UPPER_HEX, 32);
        (v.clone(), vec![v])
    }),
    ("laravel_session", "laravel_session", |r| {
        let iv = random_b64(r, 16);
        let value = random_b64(r, 150);
        let mac = r.string(HEX, 64);
        let json =
            format!("{{\"iv\":\"{iv}\",\"value\":\"{value}\",\"mac\":\"{mac}\",\"tag\":\"\"}}");
        let v = pct_b64(&base64(json.as_bytes()));
        (v.clone(), vec![v])
    }),
    ("rails_session", "_myapp_session", |r| {
        let data = random_b64(r, 180);
        let iv = random_b64(r, 12);
        let tag = random_b64(r, 16);
        let v = pct_b64(&format!("{data}--{iv}--{tag}"));
        (v.clone(), vec![v])
    }),
    (
        "nextauth_session",
        "__Secure-next-auth.session-token",
        |r| {
            let header = base64url(b"{\"alg\":\"dir\",\"enc\":\"A256GCM\"}");
            let (iv, ct, tag) = (r.string(URL, 16), r.string(URL, 310), r.string(URL, 22));
            (format!("{header}..{iv}.{ct}.{tag}"), vec![iv, ct, tag])
        },
    ),
];

fn session_cookies(rng: &mut Rng, out: &mut Vec<Positive>) {
    for (i, (kind, name, make)) in COOKIES.iter().enumerate() {
        for k in 0..4 {
            let (value, secrets) = make(rng);
            let ctx = COOKIE_CONTEXTS[(i * 3 + k * 3 + k / 2) % COOKIE_CONTEXTS.len()];
            out.push(Positive {
                family: "cookies",
                kind,
                text: ctx(name, &value),
                secrets,
            });
        }
    }
    for i in 0..6 {
        let (kind, text, secrets) = match i % 3 {
            0 => {
                let v = rng.string(LOWER_DIGIT, 32);
                (
                    "curl_b_sessionid",
                    format!("$ curl -b \"sessionid={v}\" https://app.example.com/admin/"),
                    vec![v],
                )
            }
            1 => {
                let (sid, sig) = (rng.string(URL, 32), rng.string(ALNUM, 43));
                (
                    "curl_cookie_connect_sid",
                    format!(
                        "curl --cookie \"connect.sid=s%3A{sid}.{sig}\" http://localhost:3000/api/me"
                    ),
                    vec![sid, sig],
                )
            }
            _ => {
                let v = rng.string(LOWER_DIGIT, 32);
                (
                    "requests_cookies",
                    format!(
                        "resp = requests.get(url, cookies={{\"sessionid\": \"{v}\"}})\nprint(resp.status_code)"
                    ),
                    vec![v],
                )
            }
        };
        out.push(Positive {
            family: "cookies",
            kind,
            text,
            secrets,
        });
    }
    for _ in 0..3 {
        let v = rng.string(UPPER_HEX, 32);
        out.push(Positive {
            family: "cookies",
            kind: "jsessionid_url",
            text: format!(
                "GET https://shop.example.com/cart;jsessionid={v}?item=4211 -> 200 (12ms)"
            ),
            secrets: vec![v],
        });
    }
}

/// Languages and files a provider token is pasted into.
const LANG_CONTEXTS: &[(bool, Context)] = &[
    (false, |v, s| {
        codex_call(&format!("export {v}={s} && npm run deploy -- --prod"), 1)
    }),
    (false, |v, s| {
        format!(
            "services:\n  worker:\n    image: acme/worker:1.2\n    environment:\n      - {v}={s}\n      - QUEUE=default\n"
        )
    }),
    (false, |v, s| {
        format!(
            "[integrations]\nendpoint = \"https://api.example.com\"\n{} = \"{s}\"\n",
            v.to_lowercase()
        )
    }),
    (false, |v, s| {
        format!("import os\n\nos.environ.setdefault(\"{v}\", \"{s}\")\n")
    }),
    (false, |v, s| {
        format!("const token = process.env.{v} ?? \"{s}\";")
    }),
    (true, |_, s| {
        format!(
            "func main() {{\n\tclient := api.NewClient(\"{s}\", api.WithTimeout(30*time.Second))\n\tdefer client.Close()\n}}"
        )
    }),
    (false, |v, s| {
        format!("public static final String {v} = \"{s}\";")
    }),
    (false, |v, s| {
        format!(
            "Acme.configure do |config|\n  config.{} = \"{s}\"\nend",
            v.to_lowercase()
        )
    }),
    (false, |v, s| {
        format!("    '{}' => env('{v}', '{s}'),", v.to_lowercase())
    }),
    (true, |_, s| {
        format!("I rotated it already, but the old one was {s} if you need it to check the logs.")
    }),
    (false, |v, s| {
        format!(
            "{}={s}\nlogging.level.root=INFO",
            v.to_lowercase().replace('_', ".")
        )
    }),
    (true, |_, s| {
        format!(
            "{}\n{}",
            codex_call("grep -rn \"key\" src/config/", 0),
            codex_output(
                &format!(
                    "src/config/settings.ts:14:  key: \"{s}\",\nsrc/config/settings.ts:15:  timeout: 30_000,"
                ),
                0,
                0
            )
        )
    }),
];

const MORE_PROVIDERS: &[Provider] = &[
    p!("registries", "jfrog", "JFROG_API_KEY", true, |r| format!(
        "AKCp{}",
        r.string(ALNUM, 69)
    )),
    p!("saas", "salesforce", "SF_ACCESS_TOKEN", true, |r| format!(
        "00D{}!{}",
        r.string(ALNUM, 12),
        r.string(SALESFORCE, 96)
    )),
    p!(
        "payments",
        "square_access_token",
        "SQUARE_ACCESS_TOKEN",
        true,
        |r| format!("EAAA{}", r.string(URL, 60))
    ),
    p!(
        "saas",
        "facebook",
        "FACEBOOK_ACCESS_TOKEN",
        true,
        |r| format!("EAA{}", r.string(ALNUM, 150))
    ),
    p!("saas", "sonarqube", "SONAR_TOKEN", true, |r| format!(
        "{}{}",
        r.pick(&["squ_", "sqp_", "sqa_"]),
        r.string(HEX, 40)
    )),
    p!("saas", "circleci", "CIRCLECI_TOKEN", true, |r| format!(
        "CCIPAT_{}_{}",
        r.string(ALNUM, 22),
        r.string(HEX, 40)
    )),
    p!(
        "saas",
        "hubspot",
        "HUBSPOT_ACCESS_TOKEN",
        true,
        |r| format!("{}{}", r.pick(&["pat-na1-", "pat-eu1-"]), uuid(r))
    ),
    p!("saas", "brevo", "BREVO_API_KEY", true, |r| format!(
        "xkeysib-{}-{}",
        r.string(HEX, 64),
        r.string(ALNUM, 16)
    )),
    p!("saas", "mailchimp", "MAILCHIMP_API_KEY", true, |r| format!(
        "{}-us{}",
        r.string(HEX, 32),
        r.range(1, 21)
    )),
    p!(
        "saas",
        "dropbox",
        "DROPBOX_ACCESS_TOKEN",
        true,
        |r| format!("sl.{}", r.string(URL, 140))
    ),
    p!("saas", "typeform", "TYPEFORM_TOKEN", true, |r| format!(
        "tfp_{}_{}",
        r.string(URL, 44),
        r.string(ALNUM, 14)
    )),
    p!("crypto", "bip32_xprv", "HD_WALLET_XPRV", true, |r| format!(
        "xprv{}",
        r.string(B58, 107)
    )),
    p!(
        "cloud",
        "aws_bedrock_api_key",
        "AWS_BEARER_TOKEN_BEDROCK",
        true,
        |r| format!("ABSKQmVkcm9ja0FQSUtleS{}", r.string(B64, 100))
    ),
];

fn more_providers(rng: &mut Rng, out: &mut Vec<Positive>) {
    for p in MORE_PROVIDERS {
        let usable: Vec<&Context> = LANG_CONTEXTS
            .iter()
            .filter(|(needs_prefix, _)| p.prefixed || !needs_prefix)
            .map(|(_, c)| c)
            .collect();
        let first = rng.below(usable.len());
        for k in 0..4 {
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
    // Formats with their own usual places.
    for i in 0..3 {
        let k = format!("AKCp{}", rng.string(ALNUM, 69));
        let text = match i {
            0 => format!(
                "curl -H \"X-JFrog-Art-Api: {k}\" -T target/app-1.0.jar https://acme.jfrog.io/artifactory/libs-release-local/com/acme/app/1.0/app-1.0.jar"
            ),
            1 => format!(
                "> PUT /artifactory/libs-release-local/app.jar HTTP/1.1\n> Host: acme.jfrog.io\n> X-JFrog-Art-Api: {k}\n> Content-Length: 18234"
            ),
            _ => format!(
                "resp = requests.get(url, headers={{\"X-JFrog-Art-Api\": \"{k}\"}}, timeout=30)"
            ),
        };
        out.push(Positive {
            family: "registries",
            kind: "jfrog_header",
            text,
            secrets: vec![k],
        });
    }
    for i in 0..2 {
        let t = format!(
            "00D{}!{}",
            rng.string(ALNUM, 12),
            rng.string(SALESFORCE, 96)
        );
        let output = format!(
            "=== Org Description\n\n KEY              VALUE\n ──────────────── ──────────────────────────────────────\n Access Token     {t}\n Alias            prod\n Instance Url     https://acme.my.salesforce.com\n Username         admin@acme.com"
        );
        out.push(Positive {
            family: "saas",
            kind: "salesforce_org_display",
            text: transcript(i * 2, "sf org display --target-org prod", &output, 0),
            secrets: vec![t],
        });
    }
    let cohere: &[Context] = &[
        |_, k| {
            format!("import cohere\n\nco = cohere.Client(\"{k}\")\nresp = co.chat(message=\"hi\")")
        },
        |_, k| format!("co = cohere.ClientV2(api_key=\"{k}\")"),
        |_, k| format!("COHERE_API_KEY={k}\n"),
        |_, k| format!("$ export CO_API_KEY={k}\n$ python rerank.py"),
        |_, k| format!("const cohere = new CohereClient({{ token: \"{k}\" }});"),
        |_, k| format!("env:\n  CO_API_KEY: \"{k}\"\n"),
        |_, k| {
            codex_call(
                &format!("CO_API_KEY={k} python3 scripts/embed.py --limit 10"),
                2,
            )
        },
        |_, k| {
            format!(
                "co = cohere.ClientV2(\"{k}\")\nresponse = co.embed(texts=docs, model=\"embed-english-v3.0\", input_type=\"search_document\")"
            )
        },
    ];
    for ctx in cohere {
        let k = rng.string(ALNUM, 40);
        out.push(Positive {
            family: "model_providers",
            kind: "cohere_code",
            text: ctx("", &k),
            secrets: vec![k],
        });
    }
    let discord: &[Context] = &[
        |_, t| format!("bot.run(\"{t}\")"),
        |_, t| format!("client.once('ready', () => console.log('ready'));\nclient.login('{t}');"),
        |_, t| format!("$ node index.js {t}\nLogged in as acme-helper#4821"),
        |_, t| {
            format!(
                "dg, err := discordgo.New(\"Bot \" + \"{t}\")\nif err != nil {{\n\treturn err\n}}"
            )
        },
        |_, t| format!("still getting 401 Unauthorized with {t} — was it reset?"),
        |_, t| {
            format!("{{\n  \"prefix\": \"!\",\n  \"owner\": \"Acme#0001\",\n  \"bot\": \"{t}\"\n}}")
        },
        |_, t| transcript(1, "cat config/bot.txt", t, 0),
        |_, t| format!("{t}\n"),
    ];
    for ctx in discord {
        let t = discord_token(rng);
        out.push(Positive {
            family: "chat",
            kind: "discord_bot_bare",
            text: ctx("", &t),
            secrets: vec![t],
        });
    }
}

/// Passwords with list or query punctuation in them, passwords given to
/// PuTTY, MinIO, Grafana, PowerShell and .NET, here-strings piped to a
/// login, and credentials pasted in chat.
fn typed_passwords(rng: &mut Rng, out: &mut Vec<Positive>) {
    let punctuated = |rng: &mut Rng| {
        format!(
            "{}{},{}&{}!",
            rng.string(LETTERS, 4),
            rng.string(DIGITS, 2),
            rng.string(ALNUM, 5),
            rng.string(LOWER_DIGIT, 3)
        )
    };
    let with_punctuation: &[Context] = &[
        |_, p| format!("DATABASE_HOST=db.internal\nDATABASE_PASSWORD={p}\nLOG_LEVEL=info"),
        |_, p| format!("terraform apply -auto-approve -var 'db_password={p}' -var 'env=prod'"),
        |_, p| {
            format!(
                "Server=tcp:orders.database.windows.net,1433;User ID=app;Password={p};Encrypt=True;"
            )
        },
        |_, p| format!("export SMTP_PASS={p}"),
        |_, p| format!("network={{\n  ssid=\"office\"\n  psk=\"{p}\"\n}}"),
    ];
    for ctx in with_punctuation {
        let p = punctuated(rng);
        out.push(Positive {
            family: "typed_passwords",
            kind: "punctuated_password",
            text: ctx("", &p),
            secrets: vec![p],
        });
    }
    let commands: &[Context] = &[
        |_, p| format!("plink -batch -pw {p} root@192.168.1.96 \"df -h\""),
        |_, p| format!("pscp -pw {p} backup.tar.gz admin@10.0.0.4:/srv/"),
        |_, p| format!("mc alias set local http://127.0.0.1:9000 AKMINIOADMIN4821XYZQ {p}"),
        |_, p| format!("mc config host add s3 https://minio.acme.io ACMEBACKUP01 {p}"),
        |_, p| format!("grafana-cli admin reset-admin-password '{p}'"),
        |_, p| {
            format!(
                "$pw = ConvertTo-SecureString \"{p}\" -AsPlainText -Force\n$cred = New-Object PSCredential('svc', $pw)"
            )
        },
        |_, p| {
            format!(
                "var smtp = new SmtpClient(\"smtp.office365.com\", 587)\n{{\n    Credentials = new NetworkCredential(\"noreply@acme.io\", \"{p}\")\n}};"
            )
        },
        |_, p| format!("cat <<< '{p}' | podman login quay.io -u acme+deployer --password-stdin"),
    ];
    for ctx in commands {
        let p = format!("{}-{}", rng.string(ALNUM, 10), rng.string(ALNUM, 8));
        out.push(Positive {
            family: "typed_passwords",
            kind: "command_password",
            text: ctx("", &p),
            secrets: vec![p],
        });
    }
    let chat: &[Context] = &[
        |_, p| {
            format!(
                "Use these for the SMTP step:\nuser: notifications@acme.io\npass: {p}\nhost: smtp.office365.com:587"
            )
        },
        |_, p| format!("ssh is deploy@203.0.113.174, password {p}. sudo uses the same one."),
        |_, p| {
            format!(
                "I regenerated the HCLOUD_TOKEN, new value is {p} — update the deploy script please"
            )
        },
    ];
    for ctx in chat {
        let p = rng.string(ALNUM, 40);
        out.push(Positive {
            family: "chat",
            kind: "pasted_credentials",
            text: ctx("", &p),
            secrets: vec![p],
        });
    }
}

/// Secrets named by the sentence or the call around them, and wallets'
/// keys: a key file echoed in a tool's output, prose ("the root password on
/// the build box is X", "configured with key `X`"), login pairs, a
/// generated line a later sentence names, call arguments (`jwt.sign`,
/// `algoliasearch`), Terraform variable defaults, MySQL's `SET PASSWORD`,
/// `.pgpass` wildcards, more commands (`lftp`, `xfreerdp`, `snyk`, `vault
/// login`, `setx`, SQLcl, secret stores fed by a pipe), Bitcoin WIF keys
/// and Solana keypair files.
fn named_secrets(rng: &mut Rng, out: &mut Vec<Positive>) {
    let base58 = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz";
    let hex32 = rng.string(HEX, 32);
    out.push(Positive {
        family: "named",
        kind: "echoed_key_file",
        text: format!(
            "{{\"type\":\"tool_result\",\"content\":\"$ cat config/master.key\\n{hex32}\\n\",\"is_error\":false}}"
        ),
        secrets: vec![hex32],
    });
    let hex32 = rng.string(HEX, 32);
    out.push(Positive {
        family: "named",
        kind: "echoed_key_file",
        text: format!("fyi our master.key is {hex32} — don't commit it"),
        secrets: vec![hex32],
    });
    let prose: &[Context] = &[
        |_, p| format!("the root password on the build box is {p} (rotate after the demo)"),
        |_, p| format!("Password for the grafana admin: {p}"),
        |_, p| format!("login is deploy / {p}"),
        |_, p| format!("creds: svc-backup / {p}"),
    ];
    for ctx in prose {
        let p = format!("{}#{}", rng.string(ALNUM, 8), rng.string(ALNUM, 5));
        out.push(Positive {
            family: "named",
            kind: "prose_password",
            text: ctx("", &p),
            secrets: vec![p],
        });
    }
    let tokens: &[Context] = &[
        |_, t| format!("Done: the uploader is now configured with key `{t}`."),
        |_, t| format!("ngrok: authtoken for this agent: {t}"),
        |_, t| format!("{t}\n\nthis is the Linear token, store it in 1Password please"),
        |_, t| format!("\"content\":\"{t}\\n\\nthat's the Sentry auth token for CI\""),
    ];
    for ctx in tokens {
        let t = rng.string(ALNUM, 44);
        out.push(Positive {
            family: "named",
            kind: "prose_token",
            text: ctx("", &t),
            secrets: vec![t],
        });
    }
    let u = uuid(rng);
    out.push(Positive {
        family: "named",
        kind: "uuid_key",
        text: format!("Here's the Heroku API key ({u}); the pipeline reads HEROKU_API_KEY."),
        secrets: vec![u],
    });
    let u = uuid(rng);
    out.push(Positive {
        family: "named",
        kind: "uuid_key",
        text: format!("snyk auth {u} && snyk monitor"),
        secrets: vec![u],
    });
    let calls: &[Context] = &[
        |_, s| format!("const token = jwt.sign({{ sub: user.id }}, '{s}', {{ expiresIn: '2h' }});"),
        |_, s| format!("token = jwt.encode({{\"sub\": 7}}, \"{s}\", algorithm=\"HS256\")"),
        |_, s| format!("const index = algoliasearch('Q2W3E4R5T6', '{s}').initIndex('docs');"),
        |_, s| {
            format!(
                "variable \"signing_secret\" {{\n  type      = string\n  sensitive = true\n  default   = \"{s}\"\n}}"
            )
        },
        |_, s| format!("mysql> SET PASSWORD FOR 'report'@'%' = '{s}';"),
        |_, s| format!("SET PASSWORD = PASSWORD('{s}');"),
        |_, s| format!("smtp:\n  host: mail.acme.io\n  user: bot\n  pass: {s}\n"),
    ];
    for ctx in calls {
        let s = format!("{}{}", rng.string(HEX, 24), rng.string(ALNUM, 8));
        out.push(Positive {
            family: "named",
            kind: "argument_or_default",
            text: ctx("", &s),
            secrets: vec![s],
        });
    }
    let commands: &[Context] = &[
        |_, p| format!("*:*:*:replicator:{p}"),
        |_, p| format!("db.internal:*:*:app:{p}"),
        |_, p| format!("sqlcl admin/{p}@//adb.eu-frankfurt-1.oraclecloud.com:1522/orders_high"),
        |_, p| format!("lftp -u mirror,'{p}' sftp://files.acme.io -e 'mirror -R dist /www'"),
        |_, p| format!("xfreerdp /v:build-win01 /u:Administrator /p:'{p}' /cert:ignore"),
        |_, p| format!("setx DEPLOY_TOKEN \"{p}\""),
        |_, p| format!("printf '%s' '{p}' | gcloud secrets create stripe-key --data-file=-"),
        |_, p| format!("echo -n '{p}' | docker secret create db_password -"),
    ];
    for ctx in commands {
        let p = format!("{}_{}", rng.string(ALNUM, 12), rng.string(ALNUM, 6));
        out.push(Positive {
            family: "named",
            kind: "command_secret",
            text: ctx("", &p),
            secrets: vec![p],
        });
    }
    let vault = format!("hvs.{}", rng.string(ALNUM, 90));
    out.push(Positive {
        family: "named",
        kind: "command_secret",
        text: format!("$ vault login -method=token {vault}\nSuccess! You are now authenticated."),
        secrets: vec![vault],
    });
    let legacy = format!("s.{}", rng.string(ALNUM, 24));
    out.push(Positive {
        family: "named",
        kind: "command_secret",
        text: format!("vault login token={legacy}"),
        secrets: vec![legacy],
    });
    for (prefix, len, context) in [
        ("K", 51, "WIF: "),
        ("L", 51, "bitcoin-cli importprivkey "),
        ("5J", 49, "electrum> dumpprivkey bc1q… => "),
    ] {
        let key = format!("{prefix}{}", rng.string(base58, len));
        out.push(Positive {
            family: "wallets",
            kind: "bitcoin_wif",
            text: format!("{context}{key} \"cold\""),
            secrets: vec![key],
        });
    }
    let bytes: Vec<String> = (0..64).map(|_| rng.below(256).to_string()).collect();
    let array = format!("[{}]", bytes.join(","));
    out.push(Positive {
        family: "wallets",
        kind: "solana_keypair",
        text: format!("$ cat ~/.config/solana/id.json\n{array}"),
        secrets: vec![array],
    });
    let bytes: Vec<String> = (0..64).map(|_| rng.below(256).to_string()).collect();
    let array = format!("[{}]", bytes.join(", "));
    out.push(Positive {
        family: "wallets",
        kind: "solana_keypair",
        text: format!("{{\"content\":\"{array}\",\"filePath\":\"deploy/keypair.json\"}}"),
        secrets: vec![array],
    });
}

/// Passwords and keys in other languages' words and sentences, and the
/// shapes of config and code the name rules learned since: `||=`, `??=`,
/// `?=`, property lists, `SetEnv`, `proxy_set_header`, a space-separated
/// `client_secret X`, `$dbpass`, JDBC's `getConnection`, `cqlsh -p`, Google
/// app passwords, Mattermost and IFTTT hooks, Plaid and Asana tokens, a
/// Confluent key as the SASL user name, a seed phrase named in prose.
fn foreign_and_config(rng: &mut Rng, out: &mut Vec<Positive>) {
    let prose: &[Context] = &[
        |_, p| format!("Das Kennwort für die Test-VM lautet {p}, bitte nicht teilen."),
        |_, p| format!("Le mot de passe du compte de service est {p} (à changer)."),
        |_, p| format!("La contraseña de la réplica es {p}"),
        |_, p| format!("A senha do Redis é {p}, depois eu troco."),
        |_, p| format!("Het wachtwoord voor de database is {p}"),
        |_, p| format!("Hasło do VPN: {p}"),
        |_, p| format!("Пароль для базы: {p}"),
        |_, p| format!("Veritabanı şifresi {p} olarak ayarlandı"),
        |_, p| format!("Lösenordet för servern är {p}"),
        |_, p| format!("Mật khẩu máy chủ là {p} nhé"),
        |_, p| format!("Kata sandi untuk database adalah {p}"),
        |_, p| format!("ステージングのパスワードは {p} です"),
        |_, p| format!("测试环境的密码是 {p}，用完请删除"),
        |_, p| format!("서버 비밀번호는 {p} 입니다"),
        |_, p| format!("كلمة المرور للخادم هي {p}"),
        |_, p| format!("डेटाबेस का पासवर्ड {p} है"),
        |_, p| format!("La password del database è {p}"),
        |_, p| format!("Tried the login again with password {p} and it still fails"),
    ];
    for ctx in prose {
        let p = format!(
            "{}{}#{}",
            rng.string(LETTERS, 5),
            rng.string(DIGITS, 2),
            rng.string(ALNUM, 4)
        );
        out.push(Positive {
            family: "foreign",
            kind: "prose_password",
            text: ctx("", &p),
            secrets: vec![p],
        });
    }
    let config: &[Context] = &[
        |_, p| format!("# Zugangsdaten\nDB_PASSWORT={p}"),
        |_, p| format!("senha: {p}"),
        |_, p| format!("wachtwoord={p}"),
        |_, p| format!("haslo = \"{p}\""),
        |_, p| format!("mat_khau: {p}"),
        |_, p| format!("kata_sandi={p}"),
        |_, p| format!("пароль={p}"),
        |_, p| format!("パスワード: {p}"),
    ];
    for ctx in config {
        let p = format!("{}&{}", rng.string(ALNUM, 9), rng.string(ALNUM, 5));
        out.push(Positive {
            family: "foreign",
            kind: "config_password",
            text: ctx("", &p),
            secrets: vec![p],
        });
    }
    let keys: &[Context] = &[
        |_, k| format!("minha chave da API é {k}, não funciona"),
        |_, k| format!("Mój klucz API: {k} — czemu 401?"),
        |_, k| format!("Ini kunci API saya: {k}"),
    ];
    for ctx in keys {
        let k = rng.string(ALNUM, 40);
        out.push(Positive {
            family: "foreign",
            kind: "prose_api_key",
            text: ctx("", &k),
            secrets: vec![k],
        });
    }
    let code: &[Context] = &[
        |_, s| format!("ENV[\"SENDGRID_API_KEY\"] ||= \"{s}\""),
        |_, s| format!("process.env.NOTION_TOKEN ??= \"{s}\";"),
        |_, s| format!("RELEASE_TOKEN ?= {s}"),
        |_, s| format!("<key>ServiceAPIKey</key>\n\t<string>{s}</string>"),
        |_, s| format!("SetEnv PAYMENTS_SECRET {s}"),
        |_, s| format!("proxy_set_header X-Auth-Token \"{s}\";"),
        |_, s| format!("client_secret {s}"),
        |_, s| format!("$smtppass = '{s}';"),
        |_, s| {
            format!(
                "Connection c = DriverManager.getConnection(\n    \"jdbc:mysql://db:3306/app\", \"app\", \"{s}\");"
            )
        },
        |_, s| format!("cqlsh cass-0 9042 -u admin -p '{s}'"),
    ];
    for ctx in code {
        let s = format!("{}{}", rng.string(ALNUM, 28), rng.string(DIGITS, 4));
        out.push(Positive {
            family: "config_shapes",
            kind: "named_value",
            text: ctx("", &s),
            secrets: vec![s],
        });
    }
    let app = (0..4)
        .map(|_| rng.string(LOWER, 4))
        .collect::<Vec<_>>()
        .join(" ");
    out.push(Positive {
        family: "config_shapes",
        kind: "app_password",
        text: format!("smtp:\n  username: bot@acme.io\n  password: \"{app}\""),
        secrets: vec![app],
    });
    let mm = format!("{}{}", rng.string(LOWER, 20), rng.string(DIGITS, 6));
    out.push(Positive {
        family: "config_shapes",
        kind: "webhook",
        text: format!("MM_WEBHOOK=https://mm.acme.io/hooks/{mm}"),
        secrets: vec![mm],
    });
    let ifttt = format!("{}_{}", rng.string(ALNUM, 12), rng.string(ALNUM, 9));
    out.push(Positive {
        family: "config_shapes",
        kind: "webhook",
        text: format!("curl -X POST https://maker.ifttt.com/trigger/backup_done/with/key/{ifttt}"),
        secrets: vec![ifttt],
    });
    let plaid = format!("access-sandbox-{}", uuid(rng));
    out.push(Positive {
        family: "config_shapes",
        kind: "provider_token",
        text: format!("item = {{\"access_token\": \"{plaid}\", \"item_id\": \"abc\"}}"),
        secrets: vec![plaid],
    });
    let asana = format!(
        "2/{}/{}:{}",
        rng.string(DIGITS, 16),
        rng.string(DIGITS, 16),
        rng.string(HEX, 32)
    );
    out.push(Positive {
        family: "config_shapes",
        kind: "provider_token",
        text: format!(
            "curl -H \"Authorization: Bearer {asana}\" https://app.asana.com/api/1.0/users/me"
        ),
        secrets: vec![asana],
    });
    let confluent = format!(
        "{}{}",
        rng.string("ABCDEFGHIJKLMNOPQRSTUVWXYZ", 10),
        rng.string(DIGITS, 6)
    );
    out.push(Positive {
        family: "config_shapes",
        kind: "provider_token",
        text: format!(
            "sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required username=\"{confluent}\" password=\"{}\";",
            rng.string(ALNUM, 40)
        ),
        secrets: vec![confluent],
    });
    let words = [
        "abandon", "ability", "able", "about", "above", "absent", "absorb", "abstract", "absurd",
        "abuse", "access", "accident",
    ];
    let phrase = (0..12)
        .map(|_| *rng.pick(&words))
        .collect::<Vec<_>>()
        .join(" ");
    out.push(Positive {
        family: "wallets",
        kind: "seed_phrase",
        text: format!("recovery phrase for the staging wallet: {phrase}"),
        secrets: vec![phrase],
    });
}

/// More tools, files and phrasings: Markdown tables and inline code, CSV
/// rows, SQL Server's `N'…'`, sssd, rclone, fish, jq, HTTPie, psexec,
/// ipmitool, SNMPv3, `az devops login` fed by a pipe, "key"/"token" next to
/// "API" in other languages, more words for "password", login pairs and
/// secrets named by a phrase, hook and RPC keys, Nostr and base58 Solana keys.
fn tools_and_phrasings(rng: &mut Rng, out: &mut Vec<Positive>) {
    let named: &[Context] = &[
        |_, s| {
            format!(
                "| Service | Variable | Value |\n|---|---|---|\n| Mux | `MUX_TOKEN_SECRET` | `{s}` |"
            )
        },
        |_, s| format!("Then set `SIGNING_SECRET` to `{s}` in the dashboard."),
        |_, s| format!("$ cat creds.csv\nname,value\nservice_token,{s}\n"),
        |_, s| format!("ALTER LOGIN report WITH PASSWORD = N'{s}';"),
        |_, s| format!("[domain/corp]\nldap_default_authtok = {s}\n"),
        |_, s| format!("[b2]\ntype = b2\naccount = 0012ab\npass = {s}\n"),
        |_, s| format!("set -gx CI_DEPLOY_TOKEN {s}"),
        |_, s| format!("jq -n --arg user svc --arg pass '{s}' '{{user: $user, pass: $pass}}'"),
        |_, s| format!("http -a ops:'{s}' GET https://grafana.internal/api/health"),
        |_, s| format!("psexec \\\\build01 -u CORP\\svc -p {s} cmd /c whoami"),
        |_, s| format!("ipmitool -I lanplus -H 10.0.0.9 -U ADMIN -P '{s}' sel list"),
        |_, s| {
            format!(
                "snmpget -v3 -l authPriv -u mon -a SHA -A '{s}' -x AES -X '{s}' sw01 sysUpTime.0"
            )
        },
        |_, s| format!("echo {s} | az devops login --organization https://dev.azure.com/acme"),
        |_, s| format!("MJ_APIKEY_PRIVATE={s}"),
        |_, s| format!("vpn: user mkovacs, pw: {s}"),
        |_, s| format!("the admin login for the build box is admin / {s} until Friday"),
    ];
    for ctx in named {
        let s = format!(
            "{}!{}{}",
            rng.string(ALNUM, 10),
            rng.string(DIGITS, 3),
            rng.string(ALNUM, 6)
        );
        out.push(Positive {
            family: "tools",
            kind: "named_value",
            text: ctx("", &s),
            secrets: vec![s],
        });
    }
    let keys: &[Context] = &[
        |_, k| format!("Ecco la chiave API: {k}"),
        |_, k| format!("API-nyckeln är {k}"),
        |_, k| format!("De API-sleutel is {k}"),
        |_, k| format!("Te paso la clave de la API: {k}"),
        |_, k| format!("API anahtarı şu: {k}"),
        |_, k| format!("Ключ API: {k}"),
        |_, k| format!("这是 API 密钥：{k}"),
        |_, k| format!("APIキーはこちらです：{k}"),
        |_, k| format!("API 토큰: {k}"),
        |_, k| format!("API कुंजी: {k}"),
        |_, k| format!("مفتاح API هو {k}"),
        |_, k| format!("Khóa API: {k}"),
        |_, k| format!("the shared secret for the billing webhook is {k}"),
        |_, k| format!("I set the session token to {k}, is that right?"),
    ];
    for ctx in keys {
        let k = rng.string(ALNUM, 40);
        out.push(Positive {
            family: "foreign",
            kind: "prose_api_key",
            text: ctx("", &k),
            secrets: vec![k],
        });
    }
    let passwords: &[Context] = &[
        |_, p| format!("mdp du compte de service : {p}"),
        |_, p| format!("הסיסמה לשרת היא {p}"),
        |_, p| format!("รหัสผ่านของฐานข้อมูลคือ {p}"),
        |_, p| format!("Ο κωδικός πρόσβασης είναι {p}"),
    ];
    for ctx in passwords {
        let p = format!(
            "{}#{}{}",
            rng.string(LETTERS, 6),
            rng.string(DIGITS, 3),
            rng.string(ALNUM, 4)
        );
        out.push(Positive {
            family: "foreign",
            kind: "prose_password",
            text: ctx("", &p),
            secrets: vec![p],
        });
    }
    let hooks: &[Context] = &[
        |_, h| format!("MAKE_HOOK=https://hook.us1.make.com/{h}"),
        |_, h| format!("curl https://eth-mainnet.g.alchemy.com/v2/{h} -d @req.json"),
        |_, h| format!("RPC_URL=https://sepolia.infura.io/v3/{h}"),
    ];
    for ctx in hooks {
        let h = format!("{}{}", rng.string(LOWER_DIGIT, 28), rng.string(DIGITS, 4));
        out.push(Positive {
            family: "config_shapes",
            kind: "webhook",
            text: ctx("", &h),
            secrets: vec![h],
        });
    }
    let uuid = uuid(rng);
    out.push(Positive {
        family: "config_shapes",
        kind: "webhook",
        text: format!("LARK_HOOK=https://open.feishu.cn/open-apis/bot/v2/hook/{uuid}"),
        secrets: vec![uuid],
    });
    let rocket = format!("{}/{}", rng.string(ALNUM, 24), rng.string(ALNUM, 40));
    out.push(Positive {
        family: "config_shapes",
        kind: "webhook",
        text: format!("ROCKET_HOOK=https://chat.acme.io/hooks/{rocket}"),
        secrets: vec![rocket],
    });
    let bech32 = "qpzry9x8gf2tvdw0s3jn54khce6mua7l";
    let nsec = format!("nsec1{}", rng.string(bech32, 58));
    out.push(Positive {
        family: "wallets",
        kind: "nostr_key",
        text: format!("use my throwaway key {nsec} for the relay tests"),
        secrets: vec![nsec],
    });
    let base58 = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz";
    let solana = rng.string(base58, 88);
    out.push(Positive {
        family: "wallets",
        kind: "solana_keypair",
        text: format!("exported from Phantom: {solana}"),
        secrets: vec![solana],
    });
}

/// Yet more shapes: app-specific passwords with dashes, Telnyx-style keys
/// that start with a word, SQL `INSERT … VALUES` under secret-named
/// columns, Markdown tables with a Password column, diff-added config lines,
/// bracketed fields, byte-string literals, Duo and PKCS#12 names, secrets
/// piped into `gh secret set` / `wrangler secret put`, `auth=(user, X)`,
/// `mosquitto_pub -P`, HAProxy's `insecure-password`, a Rails key echoed
/// into its file, and three more languages' words for "password".
fn more_shapes(rng: &mut Rng, out: &mut Vec<Positive>) {
    let app = (0..4)
        .map(|_| rng.string(LOWER, 4))
        .collect::<Vec<_>>()
        .join("-");
    out.push(Positive {
        family: "tools",
        kind: "shapes",
        text: format!("+icloud_app_password = \"{app}\""),
        secrets: vec![app],
    });
    let shapes: &[Context] = &[
        |_, s| format!("static const String telnyxKey = 'KEY0{s}';"),
        |_, s| {
            format!(
                "INSERT INTO integrations (provider, api_key, enabled)\nVALUES ('acme', '{s}', true);"
            )
        },
        |_, s| format!("| Host | User | Password |\n|---|---|---|\n| db-01 | app | {s} |\n"),
        |_, s| format!("*** Add File: /etc/redis/redis.conf\n+bind 127.0.0.1\n+requirepass {s}\n"),
        |_, s| {
            format!(
                "gh api repos/acme/app/hooks -f 'config[secret]={s}' -f 'config[url]=https://ci.acme.io'"
            )
        },
        |_, s| format!("WEBHOOK_SIGNING_SECRET = b\"{s}\""),
        |_, s| format!("const val DUO_SKEY = \"{s}\""),
        |_, s| format!("printf '%s' '{s}' | gh secret set SENTRY_TOKEN --repo acme/app"),
        |_, s| format!("echo '{s}' | npx wrangler secret put STRIPE_KEY"),
        |_, s| format!("driver = GraphDatabase.driver(uri, auth=(\"neo4j\", \"{s}\"))"),
        |_, s| format!("mosquitto_pub -h mqtt.acme.io -u gw -P '{s}' -t plant/temp -m 21"),
        |_, s| format!("userlist ops\n    user admin insecure-password {s}\n"),
        |_, s| format!("رمز عبور سرور {s} است"),
        |_, s| format!("সার্ভারের পাসওয়ার্ড হল {s}"),
        |_, s| format!("Nenosiri la seva ni {s}"),
    ];
    for ctx in shapes {
        let s = format!("{}{}", rng.string(ALNUM, 28), rng.string(DIGITS, 4));
        out.push(Positive {
            family: "tools",
            kind: "shapes",
            text: ctx("", &s),
            secrets: vec![s],
        });
    }
    let last: &[Context] = &[
        |_, s| format!("here's the jina key for staging: {s}"),
        |_, s| format!("login: admin / {s}"),
        |_, s| format!("try pw {s}# for the jenkins box"),
        |_, s| format!("#define WIFI_PASS \"{s}\""),
        |_, s| format!("(def db {{:dbtype \"postgresql\" :user \"acme\" :password \"{s}\"}})"),
        |_, s| format!("const secret = process.env.SESSION_SECRET || '{s}';"),
        |_, s| format!("private_token <- \"{s}\""),
        |_, s| format!("net use Z: \\\\fs01\\share /user:ACME\\maria {s}"),
        |_, s| format!("ssh-keygen -t ed25519 -N '{s}' -f ~/.ssh/id_deploy"),
        |_, s| format!("unrar x -p{s} backup.rar /tmp/restore"),
        |_, s| format!("echo 'deploy:{s}' | sudo chpasswd"),
        |_, s| format!("rclone sync ./site :sftp:/www --sftp-pass $(rclone obscure '{s}')"),
        |_, s| format!("const driver = neo4j.driver(uri, neo4j.auth.basic('neo4j', '{s}'));"),
        |_, s| format!("✔ Generated new API key\n{s}\n"),
        |_, s| format!("RPC=https://young-wild-sea.solana-mainnet.quiknode.pro/{s}/"),
    ];
    for ctx in last {
        let s = format!("{}{}", rng.string(ALNUM, 24), rng.string(DIGITS, 4));
        out.push(Positive {
            family: "tools",
            kind: "shapes",
            text: ctx("", &s),
            secrets: vec![s],
        });
    }
    let sentences: &[Context] = &[
        |_, k| format!("Вот Cloudflare API token для прода: {k} — добавь в секреты"),
        |_, k| format!("here is the Airtable PAT for staging, set it up in the secrets file: {k}"),
        |_, k| format!("Đây là Datadog application key cho môi trường staging: {k}"),
        |_, k| format!("Hier is de Okta API token voor acceptatie: {k}, zet hem in de vault"),
        |_, k| format!("这是生产环境的Intercom token：{k}"),
    ];
    for ctx in sentences {
        let k = rng.string(ALNUM, 40);
        out.push(Positive {
            family: "foreign",
            kind: "prose_api_key",
            text: ctx("", &k),
            secrets: vec![k],
        });
    }
    let evm = format!("0x{}", rng.string(HEX, 64));
    out.push(Positive {
        family: "wallets",
        kind: "evm_key",
        text: format!("Ось deployer wallet private key для стейджингу: {evm}"),
        secrets: vec![evm],
    });
    let zap = format!("{}/{}", rng.string(DIGITS, 7), rng.string(LOWER_DIGIT, 7));
    out.push(Positive {
        family: "config_shapes",
        kind: "webhook",
        text: format!("ZAPIER_HOOK=https://hooks.zapier.com/hooks/catch/{zap}/"),
        secrets: vec![zap],
    });
    let d = format!("xoxd-{}", rng.string(URL, 60));
    out.push(Positive {
        family: "chat",
        kind: "slack_cookie",
        text: format!("slackdump -cookie 'd={d}' export"),
        secrets: vec![d],
    });
    let b64 = base64(format!("p12-{}", rng.string(ALNUM, 60)).as_bytes());
    out.push(Positive {
        family: "tools",
        kind: "shapes",
        text: format!("env:\n  P12_BASE64: {b64}\n"),
        secrets: vec![b64],
    });
    let hex = rng.string(HEX, 32);
    out.push(Positive {
        family: "printed_secrets",
        kind: "echoed_key_file",
        text: format!("echo '{hex}' > config/master.key && chmod 600 config/master.key"),
        secrets: vec![hex],
    });
}

/// Key material in the shapes a held-out corpus showed missing: Vault's
/// unseal keys, Firebase server keys, OpenWeatherMap's `appid`, Rails'
/// Active Record encryption keys, Django keys full of punctuation, seed
/// words after a sentence, DRF tokens, Fernet keys, Java AWS credentials,
/// a password manager's CSV export.
fn key_material(rng: &mut Rng, out: &mut Vec<Positive>) {
    let mut push = |kind: &'static str, text: String, secrets: Vec<String>| {
        out.push(Positive {
            family: "key_material",
            kind,
            text,
            secrets,
        });
    };
    let unseal: Vec<String> = (0..3).map(|_| random_b64(rng, 33)).collect();
    let root = format!("hvs.{}", rng.string(ALNUM, 24));
    push(
        "vault_unseal",
        format!(
            "$ vault operator init -key-shares=3 -key-threshold=2\nUnseal Key 1: {}\nUnseal Key 2: {}\nUnseal Key 3: {}\n\nInitial Root Token: {root}\n",
            unseal[0], unseal[1], unseal[2]
        ),
        [unseal.clone(), vec![root]].concat(),
    );
    let key = random_b64(rng, 33);
    push(
        "vault_unseal",
        format!("$ vault operator unseal {key}\nUnseal Progress    1/2\n"),
        vec![key],
    );
    let fcm = format!("AAAA{}:APA91b{}", rng.string(URL, 7), rng.string(URL, 134));
    push(
        "fcm_server_key",
        format!("$ cat firebase/server-key.txt\n{fcm}\n"),
        vec![fcm],
    );
    let appid = rng.string(HEX, 32);
    push(
        "appid",
        format!(
            "curl -s \"https://api.openweathermap.org/data/2.5/weather?q=Lyon&appid={appid}&units=metric\""
        ),
        vec![appid],
    );
    let keys: Vec<String> = (0..3).map(|_| random_b64(rng, 32)).collect();
    push(
        "rails_encryption",
        format!(
            "active_record_encryption:\n  primary_key: {}\n  deterministic_key: {}\n  key_derivation_salt: {}\n",
            keys[0], keys[1], keys[2]
        ),
        keys,
    );
    let django = format!(
        "django-insecure-{}",
        rng.string("abcdefghijklmnopqrstuvwxyz0123456789!@#%^&*(-_=+)", 50)
    );
    push(
        "django_secret_key",
        format!("$ grep -n SECRET_KEY config/settings.py\n23:SECRET_KEY = '{django}'\n"),
        vec![django],
    );
    let words = mnemonic(rng);
    push(
        "seed_words",
        format!(
            "user: these are the seed words I wrote down:\n{words}\nplease restore the hot wallet"
        ),
        vec![words],
    );
    let drf = rng.string(HEX, 40);
    push(
        "drf_token",
        format!(
            "$ python manage.py drf_create_token ci-bot\nGenerated token {drf} for user ci-bot\n"
        ),
        vec![drf],
    );
    let fernet = base64url(&random_bytes(rng, 32));
    push(
        "fernet_key",
        format!(
            ">>> from cryptography.fernet import Fernet\n>>> Fernet.generate_key()\nb'{fernet}'\n"
        ),
        vec![fernet],
    );
    let pw = format!("{}!{}", rng.string(ALNUM, 10), rng.string(DIGITS, 3));
    push(
        "csv_export",
        format!(
            "$ head -2 bitwarden_export.csv\nfolder,favorite,type,name,login_uri,login_username,login_password,login_totp\n,,login,grafana,https://grafana.acme.io,admin,{pw},\n"
        ),
        vec![pw],
    );
    let seed = (0..25)
        .map(|_| *rng.pick(BIP39))
        .collect::<Vec<_>>()
        .join(" ");
    push(
        "seed_words",
        format!(
            "$ monero-wallet-cli --restore-deterministic-wallet\nSpecify Electrum seed: {seed}\n"
        ),
        vec![seed],
    );
    let mollie = format!("live_{}", rng.string(ALNUM, 30));
    push(
        "setter",
        format!("mollie_client = Client()\nmollie_client.set_api_key(\"{mollie}\")"),
        vec![mollie],
    );
    let pw = format!("{}{}", rng.string(ALNUM, 12), rng.string(DIGITS, 2));
    push(
        "piped_password",
        format!("ssh root@10.0.0.5 'echo \"{pw}\" | passwd --stdin deploy'"),
        vec![pw],
    );
    let aws = rng.string(B64, 40);
    push(
        "java_aws_credentials",
        format!(
            "AWSCredentials creds = new BasicAWSCredentials(System.getenv(\"AWS_ACCESS_KEY_ID\"), \"{aws}\");"
        ),
        vec![aws],
    );
}

/// Shapes the twelfth held-out corpus showed missing, in our own words:
/// command-line passwords of Windows and Poetry, camelCase `…Pat` names,
/// Azure Functions keys, base64 Docker configs, KeePass exports, TOTP
/// seeds, New Relic license keys, X bearer tokens, Django keys with `$(`,
/// Consul's gossip key, wandb logins, a password file printed.
fn command_and_export_shapes(rng: &mut Rng, out: &mut Vec<Positive>) {
    let mut push = |kind: &'static str, text: String, secrets: Vec<String>| {
        out.push(Positive {
            family: "commands_and_exports",
            kind,
            text,
            secrets,
        });
    };
    let pw = format!("{}-{}", rng.string(ALNUM, 12), rng.string(ALNUM, 6));
    push(
        "net_user",
        format!("PS C:\\> net user backup_svc {pw} /add /y\nThe command completed successfully."),
        vec![pw],
    );
    let pw = format!("{}{}#", rng.string(ALNUM, 10), rng.string(DIGITS, 3));
    push(
        "poetry_http_basic",
        format!("$ poetry config http-basic.internal deploy-bot {pw}\n$ poetry lock"),
        vec![pw],
    );
    let pat = rng.string("abcdefghijklmnopqrstuvwxyz234567", 52);
    push(
        "camel_pat",
        format!(
            "{{\n  \"Ado\": {{\n    \"orgUrl\": \"https://dev.azure.com/acme\",\n    \"buildAgentPat\": \"{pat}\"\n  }}\n}}"
        ),
        vec![pat],
    );
    let code = format!("{}==", rng.string(URL, 54));
    push(
        "azure_function_key",
        format!("curl -s \"https://billing-fn.azurewebsites.net/api/Invoice?code={code}\""),
        vec![code],
    );
    let auth = base64(
        format!(
            "{{\"auths\": {{\"registry.acme.io\": {{\"auth\": \"{}\"}}}}}}",
            base64(format!("robot:{}", rng.string(ALNUM, 20)).as_bytes())
        )
        .as_bytes(),
    );
    push(
        "dockerconfigjson",
        format!("data:\n  .dockerconfigjson: {auth}\ntype: kubernetes.io/dockerconfigjson\n"),
        vec![auth],
    );
    let pw = format!(
        "{}.{}%{}",
        rng.string(ALNUM, 5),
        rng.string(ALNUM, 5),
        rng.string(ALNUM, 5)
    );
    push(
        "keepass_xml",
        format!("<String><Key>Password</Key><Value ProtectInMemory=\"True\">{pw}</Value></String>"),
        vec![pw],
    );
    let seed = rng.string("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567", 32);
    push(
        "totp_seed",
        format!("import pyotp\ncode = pyotp.TOTP(\"{seed}\").now()"),
        vec![seed],
    );
    let seed = rng.string("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567", 64);
    push(
        "mfa_seed",
        format!(
            "$ aws iam create-virtual-mfa-device --virtual-mfa-device-name ops --outfile /dev/stdout --bootstrap-method Base32StringSeed\n{seed}\n"
        ),
        vec![seed],
    );
    let nr = format!("{}NRAL", rng.string(HEX, 36));
    push(
        "new_relic_license",
        format!("try {nr} until the new account is set up"),
        vec![nr],
    );
    let x = format!(
        "AAAAAAAAAAAAAAAAAAAAA{}%3D{}",
        rng.string(ALNUM, 30),
        rng.string(ALNUM, 50)
    );
    push("x_bearer", format!("```\n{x}\n```"), vec![x]);
    let django = format!(
        "{}$({}",
        rng.string("abcdefghijklmnopqrstuvwxyz0123456789!@#%^&*-_=+", 24),
        rng.string("abcdefghijklmnopqrstuvwxyz0123456789!@#%^&*-_=+", 24)
    );
    push(
        "django_dollar_paren",
        format!("DJANGO_SECRET_KEY='{django}'"),
        vec![django],
    );
    let gossip = random_b64(rng, 32);
    push(
        "consul_gossip",
        format!("datacenter = \"dc1\"\nencrypt = \"{gossip}\"\n"),
        vec![gossip],
    );
    let wandb = rng.string(HEX, 40);
    push(
        "wandb_login",
        format!("$ wandb login {wandb}\nwandb: Appending key"),
        vec![wandb],
    );
    let pw = format!("{}#{}", rng.string(ALNUM, 8), rng.string(ALNUM, 6));
    push(
        "printed_password_file",
        format!("$ cat ~/.ansible/vault_pass.txt\n{pw}\n$ ansible-vault view secrets.yml"),
        vec![pw],
    );
    let evm = rng.string(HEX, 64);
    push(
        "metamask_export",
        format!("my metamask export gave me {evm}, how do I import it?"),
        vec![evm],
    );
}

/// Shapes the thirteenth held-out corpus showed missing, in our own words:
/// "I set NAME to X" in prose, k3s join tokens, Convex deploy keys,
/// OpenVPN static keys, LaunchDarkly, Tencent and OneSignal keys, a token
/// piped to `--with-token`, a password in `grep -n` output.
fn prose_and_provider_shapes(rng: &mut Rng, out: &mut Vec<Positive>) {
    let mut push = |kind: &'static str, text: String, secrets: Vec<String>| {
        out.push(Positive {
            family: "prose_and_providers",
            kind,
            text,
            secrets,
        });
    };
    let key = format!("{}-{}", rng.string(HEX, 32), rng.string(HEX, 8));
    push(
        "set_to",
        format!("I set SENDGRID_API_KEY to {key} and it still fails"),
        vec![key],
    );
    let token = uuid(rng);
    push(
        "set_to",
        format!("we set PAGERDUTY_TOKEN to {token} yesterday"),
        vec![token],
    );
    let (hash, pass) = (rng.string(HEX, 64), rng.string(HEX, 32));
    push(
        "k3s_token",
        format!("$ sudo cat /var/lib/rancher/k3s/server/token\nK10{hash}::server:{pass}\n"),
        vec![format!("K10{hash}::server:{pass}")],
    );
    let convex = rng.string(ALNUM, 96);
    push(
        "convex_deploy_key",
        format!("CONVEX_DEPLOY_KEY=prod:quiet-otter-123|{convex}\nNODE_ENV=production"),
        vec![convex],
    );
    let ovpn: Vec<String> = (0..4).map(|_| rng.string(HEX, 32)).collect();
    push(
        "openvpn_static_key",
        format!(
            "-----BEGIN OpenVPN Static key V1-----\n{}\n-----END OpenVPN Static key V1-----\n",
            ovpn.join("\n")
        ),
        ovpn,
    );
    let sdk = format!("sdk-{}", uuid(rng));
    push(
        "launchdarkly",
        format!("ld = LDClient(\"{sdk}\")"),
        vec![sdk],
    );
    let tencent = format!("AKID{}", rng.string(ALNUM, 32));
    push(
        "tencent",
        format!("cred = credential.Credential(\"{tencent}\", secret_key)"),
        vec![tencent],
    );
    let onesignal = format!(
        "os_v2_app_{}",
        rng.string("abcdefghijklmnopqrstuvwxyz234567", 113)
    );
    push(
        "onesignal",
        format!("new OneSignal.Client('{onesignal}')"),
        vec![onesignal],
    );
    let piped = format!("live_{}", rng.string(ALNUM, 30));
    push(
        "with_token",
        format!("$ echo {piped} | mollie login --with-token\nLogged in."),
        vec![piped],
    );
    let pw = format!(
        "{},{}{}",
        rng.string(LOWER, 6),
        rng.string(LETTERS, 6),
        rng.string(DIGITS, 2)
    );
    push(
        "grep_n_config",
        format!("$ grep -n requirepass /etc/redis/redis.conf\n1036:requirepass {pw}\n"),
        vec![pw],
    );
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
    cli_args(&mut rng, &mut out);
    wallet_files(&mut rng, &mut out);
    printed_secrets(&mut rng, &mut out);
    conn_strings(&mut rng, &mut out);
    config_files(&mut rng, &mut out);
    session_cookies(&mut rng, &mut out);
    more_providers(&mut rng, &mut out);
    typed_passwords(&mut rng, &mut out);
    named_secrets(&mut rng, &mut out);
    foreign_and_config(&mut rng, &mut out);
    tools_and_phrasings(&mut rng, &mut out);
    more_shapes(&mut rng, &mut out);
    key_material(&mut rng, &mut out);
    command_and_export_shapes(&mut rng, &mut out);
    prose_and_provider_shapes(&mut rng, &mut out);
    printed_and_tabled(&mut rng, &mut out);
    calls_flags_and_ids(&mut rng, &mut out);
    fallbacks_hashes_and_labels(&mut rng, &mut out);
    calls_tables_and_nested_quotes(&mut rng, &mut out);
    generated_framework_keys(&mut rng, &mut out);
    headers_here_strings_and_replies(&mut rng, &mut out);
    out
}

/// Values a CLI prints or tabulates and logins in less common shapes:
/// `jq .apikey`, `snyk config get api`, `pulumi config --show-secrets`,
/// Oracle Easy Connect, `cloudflared service install`, Bitwarden's session.
fn printed_and_tabled(rng: &mut Rng, out: &mut Vec<Positive>) {
    let mut push = |kind: &'static str, text: String, secrets: Vec<String>| {
        out.push(Positive {
            family: "printed_and_tabled",
            kind,
            text,
            secrets,
        });
    };
    let key = rng.string(URL, 44);
    push(
        "jq_field",
        format!("$ ibmcloud iam api-key-create ci --output json | jq .apikey\n\"{key}\"\n"),
        vec![key],
    );
    let token = rng.string(HEX, 40);
    push(
        "jq_field",
        format!("$ curl -s -X POST $AUTH/token -d @creds.json | jq -r .access_token\n{token}\n"),
        vec![token],
    );
    let snyk = format!("{}.{}", rng.string(ALNUM, 19), rng.string(ALNUM, 21));
    push(
        "snyk_config",
        format!("$ snyk config get api\n{snyk}\n"),
        vec![snyk],
    );
    let (db, dd) = (
        format!(
            "{}-{}-{}{}",
            rng.string(LOWER, 6),
            rng.string(LOWER, 6),
            rng.string(LOWER, 6),
            rng.string(DIGITS, 2)
        ),
        rng.string(HEX, 32),
    );
    push(
        "pulumi_config",
        format!(
            "$ pulumi config --show-secrets\nKEY                      VALUE\naws:region               us-west-2\napi:dbPassword           {db}\napi:datadogApiKey        {dd}\n"
        ),
        vec![db, dd],
    );
    let pw = format!("{}{}", rng.string(LETTERS, 12), rng.string(DIGITS, 4));
    push(
        "oracle_ez_connect",
        format!("- oracle connect string: admin/{pw}@//replica-2.db.internal:1521/ORCLPDB1"),
        vec![pw],
    );
    let tunnel = base64(
        format!(
            "{{\"a\":\"{}\",\"t\":\"{}\",\"s\":\"{}\"}}",
            rng.string(HEX, 32),
            uuid(rng),
            rng.string(B64, 44)
        )
        .as_bytes(),
    );
    push(
        "cloudflared",
        format!("$ sudo cloudflared service install {tunnel}\nINF Installed cloudflared service"),
        vec![tunnel],
    );
    let bundle = base64(
        format!(
            "-----BEGIN CERTIFICATE-----\nMIIB{}\n-----END CERTIFICATE-----\n-----BEGIN PRIVATE KEY-----\nMIIE{}\n-----END PRIVATE KEY-----\n",
            rng.string(B64, 64),
            rng.string(B64, 64)
        )
        .as_bytes(),
    );
    push(
        "k8s_pem_bundle",
        format!("$ kubectl get secret edge -o jsonpath=\"{{.data.tls\\.pem}}\"\n{bundle}\n"),
        vec![bundle],
    );
    let bw = format!("{}==", rng.string(B64, 86));
    push(
        "bw_session",
        format!("REDIS_PORT=6379\nBW_SESSION={bw}\nCACHE_TTL=300"),
        vec![bw],
    );
    let pass = format!(
        "{}{}_{}",
        rng.string(LETTERS, 6),
        rng.string(DIGITS, 4),
        rng.string(LETTERS, 2)
    );
    push(
        "prose_passphrase",
        format!("fyi the export zip is encrypted, the passphrase is {pass}"),
        vec![pass],
    );
    let words = [
        "despair", "industry", "pill", "staff", "pottery", "essay", "monkey", "inject", "keen",
        "spot", "cannon", "tomato",
    ];
    let phrase: Vec<&str> = (0..12).map(|_| *rng.pick(&words)).collect();
    let phrase = phrase.join(" ");
    push(
        "seed_subscript",
        format!("os.environ['SEED_PHRASE'] = '{phrase}'"),
        vec![phrase],
    );
}

/// Secrets in call arguments, less common flags and fixed-shape ids: a PDO
/// constructor, OmniAuth's `provider`, Algolia's admin key after a comment
/// that names the search-only key, nodemailer's `pass`, `-p="…"` to a
/// login, `cypher-shell -p`, strongSwan's `: PSK`, "api key X" in prose,
/// Twitch IRC's `oauth:`, a 1Password Secret Key and a Rancher token.
fn calls_flags_and_ids(rng: &mut Rng, out: &mut Vec<Positive>) {
    let mut push = |kind: &'static str, text: String, secrets: Vec<String>| {
        out.push(Positive {
            family: "calls_flags_and_ids",
            kind,
            text,
            secrets,
        });
    };
    let pw = format!(
        "{}~{}_{}",
        rng.string(ALNUM, 9),
        rng.string(ALNUM, 6),
        rng.string(DIGITS, 2)
    );
    push(
        "pdo",
        format!(
            "$db = new PDO(\"pgsql:host=pg-replica.internal;dbname=billing\", 'billing_ro', '{pw}');"
        ),
        vec![pw],
    );
    let secret = rng.string(HEX, 40);
    push(
        "omniauth",
        format!(
            "  provider :gitlab, \"{}\", \"{secret}\", scope: \"read_user\"",
            rng.string(HEX, 20)
        ),
        vec![secret],
    );
    let (public, admin) = (rng.string(HEX, 32), rng.string(HEX, 32));
    push(
        "algolia_admin",
        format!(
            "// search-only key (ok in the bundle): {public}\nconst admin = algoliasearch('{}', '{admin}');",
            rng.string(UPPER_DIGIT, 10)
        ),
        vec![admin],
    );
    let smtp = format!(
        "{}{}-{}",
        rng.string(ALNUM, 14),
        rng.string(DIGITS, 3),
        rng.string(ALNUM, 5)
    );
    push(
        "nodemailer",
        format!("  auth: {{ user: 'apikey', pass: '{smtp}' }},"),
        vec![smtp],
    );
    let chat = format!("{}{}#", rng.string(LETTERS, 10), rng.string(DIGITS, 3));
    push(
        "prose_user_pass",
        format!("new creds for the kibana box -> user: ops, pass: {chat}. thx"),
        vec![chat],
    );
    let robot = rng.string(UPPER_DIGIT, 64);
    push(
        "login_flag_equals",
        format!("$ podman login -u=\"acme+deployer\" -p=\"{robot}\" quay.io\nLogin Succeeded!"),
        vec![robot],
    );
    let neo = format!(
        "{}.{}-{}",
        rng.string(ALNUM, 8),
        rng.string(ALNUM, 10),
        rng.string(ALNUM, 6)
    );
    push(
        "cypher_shell",
        format!("$ cypher-shell -a bolt://graph.internal:7687 -u neo4j -p {neo} 'RETURN 1;'"),
        vec![neo],
    );
    let psk = format!("{}~{}", rng.string(URL, 14), rng.string(URL, 12));
    push(
        "ipsec_psk",
        format!("$ sudo cat /etc/ipsec.secrets\n198.51.100.7 %any : PSK \"{psk}\"\n"),
        vec![psk],
    );
    let key = rng.string(HEX, 40);
    push(
        "prose_api_key",
        format!("try api key {key} for the partner staging env, read-only"),
        vec![key],
    );
    let twitch = rng.string(LOWER_DIGIT, 30);
    push(
        "twitch_irc",
        format!("sock.send(\"PASS oauth:{twitch}\\r\\n\".encode())"),
        vec![twitch],
    );
    let groups: Vec<String> = [6, 6, 5, 5, 5, 5]
        .iter()
        .map(|&n| rng.string(UPPER_DIGIT, n))
        .collect();
    let op = format!("A3-{}", groups.join("-"));
    push(
        "onepassword_secret_key",
        format!(
            "the emergency kit for acme.1password.com shows {op} - can you script `op account add`?"
        ),
        vec![op],
    );
    let rancher = format!(
        "token-{}:{}",
        rng.string(LOWER_DIGIT, 5),
        rng.string(LOWER_DIGIT, 54)
    );
    push(
        "rancher_token",
        format!("$ rancher login https://rancher.ops.internal -t {rancher} --skip-verify"),
        vec![rancher],
    );
}

/// Environment lookups with a literal fallback, crypt(3) and NTLM hashes,
/// multi-word labels in CLI tables and prompts, files named as secrets,
/// prose cues and the less common config shapes.
fn fallbacks_hashes_and_labels(rng: &mut Rng, out: &mut Vec<Positive>) {
    let mut push = |kind: &'static str, text: String, secrets: Vec<String>| {
        out.push(Positive {
            family: "fallbacks_hashes_and_labels",
            kind,
            text,
            secrets,
        });
    };
    let token = rng.string(ALNUM, 36);
    push(
        "ruby_fetch_block",
        format!("  config.api_key = ENV.fetch(\"QDRANT_API_KEY\") {{ \"{token}\" }}"),
        vec![token],
    );
    let token = rng.string(URL, 40);
    push(
        "python_getenv_or",
        format!("SENDGRID_TOKEN = os.getenv('SENDGRID_TOKEN') or '{token}'"),
        vec![token],
    );
    let token = rng.string(ALNUM, 32);
    push(
        "laravel_env_default",
        format!("    'secret' => env('PUSHER_APP_SECRET', '{token}'),"),
        vec![token],
    );
    let token = rng.string(HEX, 32);
    push(
        "rust_string_from",
        format!("let mapbox_token = String::from(\"{token}\");"),
        vec![token],
    );
    let key = rng.string(ALNUM, 32);
    push(
        "hmac_key_literal",
        format!("digest = hmac.new(b'{key}', payload, hashlib.sha256).hexdigest()"),
        vec![key],
    );
    let key = rng.string(ALNUM, 28);
    push(
        "node_create_hmac",
        format!("const mac = crypto.createHmac('sha256', '{key}').update(raw).digest('hex');"),
        vec![key],
    );
    let crypt = "./ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
    let bcrypt = format!("$2b$12${}", rng.string(crypt, 53));
    let sha512 = format!("$6${}${}", rng.string(crypt, 16), rng.string(crypt, 86));
    push(
        "htpasswd_and_shadow",
        format!(
            "$ sudo cat /etc/nginx/.htpasswd\nadmin:{bcrypt}\n$ sudo getent shadow deploy\ndeploy:{sha512}:19800:0:99999:7:::"
        ),
        vec![bcrypt, sha512],
    );
    let nt = rng.string(HEX, 32);
    push(
        "secretsdump_ntlm",
        format!(
            "[*] Dumping local SAM hashes (uid:rid:lmhash:nthash)\nsvc_backup:1104:aad3b435b51404eeaad3b435b51404ee:{nt}:::"
        ),
        vec![nt],
    );
    let secret = rng.string(B64, 64);
    push(
        "cli_table_secret",
        format!(
            "+------------+------------------------------------------------------------------+\n| API Secret | {secret} |\n+------------+------------------------------------------------------------------+"
        ),
        vec![secret],
    );
    let id = uuid(rng);
    push(
        "aligned_secret_id",
        format!(
            "$ consul acl bootstrap\nAccessorID:       {}\nSecret ID        = {id}\nDescription:      Bootstrap Token (Global Management)",
            uuid(rng)
        ),
        vec![id],
    );
    let key = uuid(rng);
    push(
        "answered_prompt",
        format!(
            "? Public API Key: {}\n? Private API Key: {key}\n? Default Org ID: {}",
            rng.string(LOWER, 8),
            rng.string(HEX, 24)
        ),
        vec![key],
    );
    let key = format!("{}=", rng.string(B64, 43));
    push(
        "cat_private_key_file",
        format!("$ umask 077 && wg genkey > privatekey\n$ cat privatekey\n{key}\n"),
        vec![key],
    );
    let pw = rng.string(HEX, 32);
    push(
        "cat_password_file",
        format!("$ sudo cat /var/lib/jenkins/secrets/initialAdminPassword\n{pw}\n"),
        vec![pw],
    );
    let pw = format!(
        "{}~{}#{}",
        rng.string(ALNUM, 5),
        rng.string(ALNUM, 6),
        rng.string(DIGITS, 3)
    );
    push(
        "echo_into_secret_file",
        format!("$ echo '{pw}' > ~/.ansible/vault_pass.txt && chmod 600 ~/.ansible/vault_pass.txt"),
        vec![pw],
    );
    let pw = format!("{}*{}", rng.string(ALNUM, 8), rng.string(ALNUM, 7));
    push(
        "terraform_console",
        format!("$ terraform console\n> var.db_admin_password\n\"{pw}\"\n> exit"),
        vec![pw],
    );
    let pw = format!("{}==", rng.string(B64, 18));
    push(
        "xml_element_with_attributes",
        format!(
            "<Server>\n  <Host>ftp.example.net</Host>\n  <User>deploy</User>\n  <Pass encoding=\"base64\">{pw}</Pass>\n</Server>"
        ),
        vec![pw],
    );
    let pw = format!(
        "{}#{}*{}",
        rng.string(ALNUM, 6),
        rng.string(ALNUM, 5),
        rng.string(ALNUM, 4)
    );
    push(
        "url_password_with_hash",
        format!("[global]\nextra-index-url = https://ci:{pw}@pypi.internal.example/simple/"),
        vec![pw],
    );
    let pw = rng.string(ALNUM, 34);
    push(
        "bundler_credentials",
        format!(
            "$ bundle config set --global gems.example-pro.com {}:{pw}\n$ cat ~/.bundle/config\n---\nBUNDLE_GEMS__EXAMPLE__PRO__COM: \"{}:{pw}\"",
            rng.string(LOWER_DIGIT, 8),
            rng.string(LOWER_DIGIT, 8)
        ),
        vec![pw],
    );
    let key = rng.string(HEX, 32);
    push(
        "kaggle_json",
        format!(
            "$ cat ~/.kaggle/kaggle.json\n{{\"username\":\"{}\",\"key\":\"{key}\"}}",
            rng.string(LOWER, 6)
        ),
        vec![key],
    );
    let key = rng.string(HEX, 32);
    push(
        "pagerduty_routing_key",
        format!("+PAGERDUTY_ROUTING_KEY={key}\n RETRIES=3"),
        vec![key],
    );
    let secret = rng.string(LETTERS, 24);
    push(
        "ini_letters_only",
        format!("[default]\noutput = json\napi_secret = {secret}"),
        vec![secret],
    );
    let key = format!(
        "django-insecure-{}&={}",
        rng.string(LOWER_DIGIT, 40),
        rng.string(LOWER_DIGIT, 8)
    );
    push(
        "secret_through_ampersand",
        format!("    environment:\n      - DJANGO_SECRET_KEY={key}\n      - DEBUG=0"),
        vec![key],
    );
    let pw = format!("{}=,{}", rng.string(ALNUM, 8), rng.string(ALNUM, 6));
    push(
        "password_through_comma",
        format!("        environment:\n          POSTGRES_PASSWORD: {pw}"),
        vec![pw],
    );
    let long = rng.string(B64, 900);
    push(
        "very_long_password_flag",
        format!(
            "$ docker login --username AWS --password {long} 1234.dkr.ecr.eu-west-1.amazonaws.com\nLogin Succeeded"
        ),
        vec![long],
    );
    let key = rng.string(HEX, 32);
    push(
        "prose_api_key_hex",
        format!("my openai api key is {key} — why does it 401?"),
        vec![key],
    );
    let key = rng.string(ALNUM, 40);
    push(
        "key_on_next_line",
        format!("user> I pasted the global API key into the terminal:\n{key}\nnow what?"),
        vec![key],
    );
    let pw = format!("{}._.{}", rng.string(ALNUM, 7), rng.string(ALNUM, 12));
    push(
        "used_as_password",
        format!("use {pw} as the keystore password when you regenerate the jks"),
        vec![pw],
    );
    let seed: Vec<String> = (0..8)
        .map(|_| rng.string("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567", 4))
        .collect();
    let seed = seed.join(" ");
    push(
        "grouped_totp_seed",
        format!("the 2FA setup key they showed is {seed}"),
        vec![seed],
    );
    let pw = rng.string(ALNUM, 20);
    push(
        "user_is_pass",
        format!("ssh to the build box: user is deploy, pass: {pw}"),
        vec![pw],
    );
    // (This was a look-alike by mistake: what `token_hex` prints is a
    // secret; the request id after it is not, and stays.)
    let hex = rng.string(HEX, 32);
    push(
        "printed_then_label",
        format!(
            "$ python -c \"import secrets; print(secrets.token_hex(16))\"\n{hex}\nrequest_id: {}\n",
            uuid(rng)
        ),
        vec![hex],
    );
    let flyv1 = format!("FlyV1 fm2_{}", rng.string(B64, 120));
    push(
        "flyv1_scheme",
        format!("FLY_API_TOKEN='{flyv1}'"),
        vec![flyv1],
    );
}

/// Secrets in call arguments past the first line, in CLI tables drawn with
/// box characters, in single quotes nested in a quoted shell command (as
/// Codex shows `bash -lc '…'`), and the shapes beside them: Terraform's
/// sensitive outputs, WS-Security's namespaced XML, a curl client
/// certificate's passphrase, Scala map entries, PHP setters, Adyen keys.
fn calls_tables_and_nested_quotes(rng: &mut Rng, out: &mut Vec<Positive>) {
    let mut push = |kind: &'static str, text: String, secrets: Vec<String>| {
        out.push(Positive {
            family: "calls_tables_and_nested_quotes",
            kind,
            text,
            secrets,
        });
    };
    let private = rng.string(HEX, 32);
    push(
        "fourth_argument_over_lines",
        format!(
            "var gw = new BraintreeGateway(\n  Environment.SANDBOX,\n  \"{}\",\n  \"{}\",\n  \"{private}\"\n);",
            rng.string(LOWER_DIGIT, 16),
            rng.string(LOWER_DIGIT, 16)
        ),
        vec![private],
    );
    let secret = rng.string(ALNUM, 24);
    push(
        "razorpay_client",
        format!(
            "client = new RazorpayClient(\"rzp_test_{}\", \"{secret}\");",
            rng.string(ALNUM, 14)
        ),
        vec![secret],
    );
    let key = format!("test_{}", rng.string(ALNUM, 30));
    push(
        "php_setter",
        format!("$client->setApiKey('{key}');"),
        vec![key],
    );
    let pw = format!("{}+{}!", rng.string(LETTERS, 8), rng.string(DIGITS, 3));
    push(
        "curl_cert_passphrase",
        format!("$ curl --cert ./certs/qwac.p12:{pw} https://api.example-bank.test/v2/accounts"),
        vec![pw],
    );
    let pw = format!("{}~{}", rng.string(ALNUM, 9), rng.string(ALNUM, 6));
    push(
        "scala_map_entry",
        format!(
            "val opts = Map(\n  \"sfUser\" -> \"ETL\",\n  \"sfPassword\" -> \"{pw}\",\n  \"sfRole\" -> \"LOADER\"\n)"
        ),
        vec![pw],
    );
    let pw = format!("{}#{}", rng.string(ALNUM, 10), rng.string(DIGITS, 2));
    push(
        "terraform_sensitive_output",
        format!(
            "$ terraform output -json db_admin\n{{\n  \"sensitive\": true,\n  \"type\": \"string\",\n  \"value\": \"{pw}\"\n}}"
        ),
        vec![pw],
    );
    let pw = format!("{}_{}+", rng.string(ALNUM, 8), rng.string(ALNUM, 8));
    push(
        "ws_security_password",
        format!(
            "<wsse:Password Type=\"http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-username-token-profile-1.0#PasswordText\">{pw}</wsse:Password>"
        ),
        vec![pw],
    );
    let secret = rng.string(B64, 64);
    push(
        "schema_registry_user_info",
        format!(
            "basic.auth.credentials.source=USER_INFO\nbasic.auth.user.info={}:{secret}",
            rng.string(UPPER_DIGIT, 16)
        ),
        vec![secret],
    );
    let adyen = format!(
        "AQE{}=-{}=-{}",
        rng.string(B64, 90),
        rng.string(B64, 43),
        rng.string("abcXYZ012%}<$;", 10)
    );
    push(
        "adyen_api_key",
        format!("ADYEN_API_KEY={adyen}\nADYEN_MERCHANT=ShopECOM"),
        vec![adyen],
    );
    let pw = format!("{}-{}*", rng.string(LETTERS, 7), rng.string(DIGITS, 4));
    push(
        "box_table_row",
        format!(
            "$ doppler secrets -p api -c prd\n┌─────────────┬──────────────────┐\n│ NAME        │ VALUE            │\n│ DB_PASSWORD │ {pw} │\n└─────────────┴──────────────────┘"
        ),
        vec![pw],
    );
    let pw = rng.string(ALNUM, 20);
    push(
        "new_value_line",
        format!(
            "$ bin/elasticsearch-reset-password -u kibana_system\nPassword for the [kibana_system] user successfully reset.\nNew value: {pw}"
        ),
        vec![pw],
    );
    let key = rng.string(HEX, 64);
    push(
        "private_key_colon",
        format!(
            "$ cast wallet new\nAddress:     0x{}\nPrivate key: {key}",
            rng.string(HEX, 40)
        ),
        vec![key],
    );
    let hex = rng.string(HEX, 40);
    push(
        "query_key_hex",
        format!("curl -s \"https://api.rates.test/v1/latest?base=EUR&key={hex}\""),
        vec![hex],
    );
    let pw = format!("{}={}", rng.string(ALNUM, 10), rng.string(DIGITS, 2));
    let encoded = base64(pw.as_bytes());
    push(
        "decoded_secret_value",
        format!(
            "$ kubectl get secret api-db -o jsonpath='{{.data.password}}'\n{encoded}\n$ echo {encoded} | base64 -d\n{pw}"
        ),
        vec![encoded, pw],
    );
    let token = format!("eyJwYXlsb2FkIjoi{}", rng.string(B64, 1500));
    push(
        "long_printed_token",
        format!("$ aws ecr get-login-password --region us-east-2\n{token}"),
        vec![token],
    );
    let pw = format!(
        "{}-{}-{}*",
        rng.string(LETTERS, 6),
        rng.string(LETTERS, 5),
        rng.string(DIGITS, 4)
    );
    push(
        "nested_quotes_user_flag",
        format!(
            "bash -lc 'curl -u admin:'\\''{pw}'\\'' https://ci.example.test/job/web/build -X POST'"
        ),
        vec![pw],
    );
    let pw = rng.string(ALNUM, 24);
    push(
        "nested_quotes_assignment",
        format!(
            "bash -lc 'RESTIC_PASSWORD='\\''{pw}'\\'' restic -r s3:s3.amazonaws.com/backups snapshots'"
        ),
        vec![pw],
    );
    let pw = format!("{}*{}", rng.string(ALNUM, 10), rng.string(ALNUM, 6));
    push(
        "nested_quotes_short_flag",
        format!("bash -lc 'ssh-keygen -p -f ~/.ssh/id_ed25519 -P '\\''{pw}'\\'' -N '\\'''\\'''"),
        vec![pw],
    );
    let pw = rng.string(ALNUM, 24);
    push(
        "hash_password_plaintext",
        format!("$ caddy hash-password --plaintext '{pw}'"),
        vec![pw],
    );
    let key = rng.string(B64, 43) + "=";
    push(
        "buffer_from_literal",
        format!("const KEY = Buffer.from(\"{key}\", \"base64\");"),
        vec![key],
    );
    let secret = rng.string(ALNUM, 40);
    push(
        "rust_byte_string",
        format!("const WEBHOOK_SECRET: &[u8] = b\"{secret}\";"),
        vec![secret],
    );
    let key = rng.string(ALNUM, 64);
    push(
        "symmetric_security_key",
        format!("var signing = new SymmetricSecurityKey(Encoding.UTF8.GetBytes(\"{key}\"));"),
        vec![key],
    );
    let id = uuid(rng);
    push(
        "client_secret_uuid",
        format!(
            "prod credentials: client id {}, client secret {id}",
            rng.string(LOWER_DIGIT, 20)
        ),
        vec![id],
    );
    let groups: Vec<String> = (0..4).map(|_| rng.string(LOWER, 4)).collect();
    let app = groups.join(" ");
    push(
        "app_password_prose",
        format!("I created an app password for the mailer: {app} (account ops@example.test)"),
        vec![app],
    );
    let key = rng.string(HEX, 32);
    push(
        "admin_key_prose",
        format!("here's the search admin key, use it for the reindex job: {key}"),
        vec![key],
    );
    let pw = format!(
        "{}~{}-{}",
        rng.string(ALNUM, 8),
        rng.string(ALNUM, 4),
        rng.string(ALNUM, 6)
    );
    push(
        "terraform_output_raw",
        format!("$ terraform output -raw db_master_password\n{pw}"),
        vec![pw],
    );
    let secret = rng.string(ALNUM, 32);
    push(
        "typed_secret_object",
        format!(
            "$ kcadm.sh get clients/{}/client-secret -r shop\n{{\n  \"type\": \"secret\",\n  \"value\": \"{secret}\"\n}}",
            uuid(rng)
        ),
        vec![secret],
    );
    let token = format!("eyJ2ZXIiOiI4LjE0LjEi{}", rng.string(B64, 180));
    push(
        "enrollment_token",
        format!("$ bin/elasticsearch-create-enrollment-token -s kibana\n{token}"),
        vec![token],
    );
    let hex = rng.string(HEX, 32);
    push(
        "jenkins_first_password",
        format!(
            "Jenkins initial setup is required.\nPlease use the following password to proceed to installation:\n\n{hex}\n\nThis may also be found at: /var/jenkins_home/secrets/initialAdminPassword"
        ),
        vec![hex],
    );
    let pw = format!(
        "{}^{}!{}",
        rng.string(ALNUM, 5),
        rng.string(ALNUM, 4),
        rng.string(DIGITS, 3)
    );
    push(
        "secure_string_after_flag",
        format!(
            "Set-ADAccountPassword -Identity jdoe -Reset -NewPassword (ConvertTo-SecureString -AsPlainText '{pw}' -Force)"
        ),
        vec![pw],
    );
    let pw = format!(
        "{}#{}%{}",
        rng.string(ALNUM, 4),
        rng.string(ALNUM, 5),
        rng.string(ALNUM, 4)
    );
    push(
        "unattend_value",
        format!(
            "$ cat packer/windows/autounattend.xml\n<UserAccounts>\n  <AdministratorPassword>\n    <Value>{pw}</Value>\n    <PlainText>true</PlainText>\n  </AdministratorPassword>\n</UserAccounts>"
        ),
        vec![pw],
    );
    let pw = format!("{}^{}", rng.string(ALNUM, 6), rng.string(ALNUM, 7));
    push(
        "racadm_password",
        format!("racadm -r idrac-04.oob.example.test -u root -p '{pw}' getsysinfo"),
        vec![pw],
    );
    let auth = format!(
        "{}!{}~{}",
        rng.string(ALNUM, 5),
        rng.string(ALNUM, 4),
        rng.string(ALNUM, 6)
    );
    let privacy = format!(
        "{}*{}!{}",
        rng.string(ALNUM, 4),
        rng.string(ALNUM, 5),
        rng.string(ALNUM, 3)
    );
    push(
        "snmpv3_create_user",
        format!(
            "$ sudo cat /etc/snmp/snmpd.conf\ncreateUser monitor SHA \"{auth}\" AES \"{privacy}\"\nrouser monitor priv"
        ),
        vec![auth, privacy],
    );
    let pw = format!(
        "{}-{}-{}",
        rng.string(LETTERS, 6),
        rng.string(LETTERS, 7),
        rng.string(DIGITS, 2)
    );
    push(
        "steamcmd_login",
        format!("steamcmd +login ci_builder '{pw}' +run_app_build ../scripts/app_build.vdf +quit"),
        vec![pw],
    );
    let first = rng.string("0123456789ABCDEF", 32);
    let second = rng.string("0123456789ABCDEF", 32);
    push(
        "p4_tickets_file",
        format!(
            "$ cat ~/.p4tickets\nssl:p4.example.test:1666=build:{first}\n10.0.3.5:1666=art-sync:{second}"
        ),
        vec![first, second],
    );
}

/// Keys that tools generate and print: Vault's unseal keys (JSON from
/// `vault operator init` and a list in prose), Django's `django-insecure-`
/// key, a Laravel encrypted cookie.
fn generated_framework_keys(rng: &mut Rng, out: &mut Vec<Positive>) {
    let mut push = |kind: &'static str, text: String, secrets: Vec<String>| {
        out.push(Positive {
            family: "generated_framework_keys",
            kind,
            text,
            secrets,
        });
    };
    let shares: Vec<String> = (0..3)
        .map(|_| format!("{}=", rng.string(B64, 43)))
        .collect();
    push(
        "vault_init_json",
        format!(
            "$ vault operator init -format=json\n{{\n  \"unseal_keys_b64\": [\n    \"{}\",\n    \"{}\",\n    \"{}\"\n  ],\n  \"unseal_shares\": 3,",
            shares[0], shares[1], shares[2]
        ),
        shares.clone(),
    );
    let hex: Vec<String> = (0..2).map(|_| rng.string(HEX, 66)).collect();
    push(
        "vault_unseal_prose",
        format!(
            "ok, unseal with these two for now:\n\n{}\n{}\n\nthe third is in the safe",
            hex[0], hex[1]
        ),
        hex,
    );
    let django = format!(
        "django-insecure-{}",
        rng.string("abcdefghijklmnopqrstuvwxyz0123456789!@#%^&*(-_=+)", 50)
    );
    push(
        "django_generated_key",
        format!("settings.py:23:SECRET_KEY = '{django}'"),
        vec![django],
    );
    let laravel = format!("eyJpdiI6{}", rng.string(ALNUM, 180));
    push(
        "laravel_cookie",
        format!("the request had laravel stuff in it: {laravel}%3D%3D and then a 419"),
        vec![laravel],
    );
}

/// Asana tokens, Honeycomb's header, here-strings, Elasticsearch's
/// `encoded` key, RCON passwords and "pw is" in prose.
fn headers_here_strings_and_replies(rng: &mut Rng, out: &mut Vec<Positive>) {
    let mut push = |kind: &'static str, text: String, secrets: Vec<String>| {
        out.push(Positive {
            family: "headers_here_strings_and_replies",
            kind,
            text,
            secrets,
        });
    };
    let asana = format!(
        "2/{}/{}:{}",
        rng.string(DIGITS, 16),
        rng.string(DIGITS, 16),
        rng.string(HEX, 32)
    );
    push(
        "asana_pat",
        format!("here's the Asana PAT for the sync job: {asana}"),
        vec![asana],
    );
    let honeycomb = rng.string(ALNUM, 22);
    push(
        "honeycomb_otlp_headers",
        format!(
            "export OTEL_EXPORTER_OTLP_HEADERS=\"x-honeycomb-team={honeycomb},x-honeycomb-dataset=api\""
        ),
        vec![honeycomb],
    );
    let secret = rng.string(B64, 44);
    push(
        "here_string",
        format!("$ vercel env add NEXTAUTH_SECRET production <<< '{secret}'"),
        vec![secret],
    );
    let encoded = rng.string(B64, 60);
    push(
        "elastic_encoded",
        format!(
            "{{\n  \"id\" : \"{}\",\n  \"name\" : \"beats\",\n  \"api_key\" : \"{}\",\n  \"encoded\" : \"{encoded}\"\n}}",
            rng.string(URL, 20),
            rng.string(URL, 22)
        ),
        vec![encoded],
    );
    let crypt = rng.string(HEX, 32);
    push(
        "magento_env_php",
        format!("  'crypt' => [\n    'key' => '{crypt}'\n  ],\n  'db' => ["),
        vec![crypt],
    );
    let key = format!("base64{}", rng.string(B64, 44));
    push(
        "magento_setup_install",
        format!("php bin/magento setup:install --db-host=db --key={key} --backend-frontname=admin"),
        vec![key],
    );
    let token = "e4f5a6b7-c8d9-4e0f-a1b2-c3d4e5f6a7b8".to_string();
    push(
        "heroku_token_after_warning",
        format!("$ heroku auth:token\n ›   Warning: token will expire 03/04/2027\n{token}\n"),
        vec![token],
    );
    let master = rng.string(HEX, 32);
    push(
        "master_key_in_patch",
        format!("*** Begin Patch\n*** Add File: config/master.key\n+{master}\n*** End Patch"),
        vec![master],
    );
    let pw = format!("{}!{}", rng.string(LETTERS, 8), rng.string(DIGITS, 3));
    push(
        "rcon_password",
        format!("mcrcon -H 10.0.0.5 -P 25575 -p '{pw}' \"whitelist add steve\""),
        vec![pw],
    );
    let pw = format!(
        "{}={}{}",
        rng.string(LETTERS, 6),
        rng.string(LETTERS, 6),
        rng.string(DIGITS, 2)
    );
    push(
        "pw_in_prose",
        format!("fyi the root pw is {pw} until friday"),
        vec![pw],
    );
}
