//! The provider rule table: tokens recognised by a documented prefix, the
//! alphabet and length of their body and, where the provider has one, a
//! checksum. A rule's prefix is also its prefilter keyword.

use super::Finding;
use super::codec::checksum_suffix;
use super::entropy::{is_phrase, looks_random};
use super::lex::{alnum, starts_word};
use super::placeholders::is_harmless_token;

/// Which bytes a token body is made of.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Alphabet {
    /// `[A-Za-z0-9]`.
    Alnum,
    /// `[A-Z0-9]`.
    UpperDigit,
    /// `[a-z0-9]`.
    LowerDigit,
    /// `[0-9a-f]`.
    HexLower,
    /// `[0-9a-fA-F]`.
    Hex,
    /// `[0-9a-f-]`.
    HexDash,
    /// `[A-Za-z0-9_]`.
    AlnumUnderscore,
    /// `[A-Za-z0-9_-]` (base64url).
    Url,
    /// `[A-Za-z0-9_.-]`.
    UrlDot,
    /// `[A-Za-z0-9_=-]` (base64url with padding).
    UrlPad,
    /// `[A-Za-z0-9+/=_-]` (either base64 alphabet with padding).
    Base64,
    /// Bech32's data characters, upper case.
    Bech32Upper,
    /// Bech32's data characters, lower case.
    Bech32Lower,
    /// Base58 (Bitcoin): alphanumerics without `0`, `O`, `I` and `l`.
    Base58,
    /// `[A-Za-z0-9$]` (Braintree's `$`-separated access tokens).
    AlnumDollar,
    /// `[A-Za-z0-9%]` (URL-encoded base64: X's app-only bearer tokens).
    AlnumPercent,
    /// Printable ASCII but quotes, backslashes and `,` (Adyen's API keys
    /// end in a part of any punctuation).
    Graphic,
}

impl Alphabet {
    fn has(self, b: u8) -> bool {
        match self {
            Alphabet::Alnum => b.is_ascii_alphanumeric(),
            Alphabet::UpperDigit => b.is_ascii_uppercase() || b.is_ascii_digit(),
            Alphabet::LowerDigit => b.is_ascii_lowercase() || b.is_ascii_digit(),
            Alphabet::HexLower => b.is_ascii_digit() || (b'a'..=b'f').contains(&b),
            Alphabet::Hex => b.is_ascii_hexdigit(),
            Alphabet::HexDash => b.is_ascii_digit() || (b'a'..=b'f').contains(&b) || b == b'-',
            Alphabet::AlnumUnderscore => b.is_ascii_alphanumeric() || b == b'_',
            Alphabet::Url => b.is_ascii_alphanumeric() || b == b'_' || b == b'-',
            Alphabet::UrlDot => b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.'),
            Alphabet::UrlPad => b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'='),
            Alphabet::Base64 => {
                b.is_ascii_alphanumeric() || matches!(b, b'+' | b'/' | b'=' | b'_' | b'-')
            }
            Alphabet::Bech32Upper => b"QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L".contains(&b),
            Alphabet::Bech32Lower => b"qpzry9x8gf2tvdw0s3jn54khce6mua7l".contains(&b),
            Alphabet::Base58 => {
                b.is_ascii_alphanumeric() && !matches!(b, b'0' | b'O' | b'I' | b'l')
            }
            Alphabet::AlnumDollar => b.is_ascii_alphanumeric() || b == b'$',
            Alphabet::AlnumPercent => b.is_ascii_alphanumeric() || b == b'%',
            Alphabet::Graphic => {
                b.is_ascii_graphic() && !matches!(b, b'"' | b'\'' | b'`' | b'\\' | b',')
            }
        }
    }
}

/// Extra check on the body once prefix, alphabet and length matched.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Check {
    /// The prefix is distinctive enough.
    None,
    /// The body must look random (short or common-looking prefixes).
    Random,
    /// The body must not be a phrase of words (`sk-learn-compatible-api`).
    NotPhrase,
    /// GitHub / npm: 30 random characters and a base62 CRC-32; a token whose
    /// checksum does not verify must at least look random.
    Crc32,
}

/// One provider token format.
#[derive(Debug)]
pub(super) struct TokenRule {
    /// Finding name.
    pub name: &'static str,
    /// Exact prefix (case-sensitive).
    pub prefix: &'static str,
    /// Body alphabet.
    pub body: Alphabet,
    /// Smallest body length.
    pub min: usize,
    /// Largest body length; a longer run of the alphabet is not this token.
    pub max: usize,
    /// Extra check.
    pub check: Check,
}

const fn rule(
    name: &'static str,
    prefix: &'static str,
    body: Alphabet,
    min: usize,
    max: usize,
    check: Check,
) -> TokenRule {
    TokenRule {
        name,
        prefix,
        body,
        min,
        max,
        check,
    }
}

/// Open-ended body length.
const ANY: usize = 1024;

use Alphabet::*;
use Check::{Crc32, None as Plain, NotPhrase, Random};

/// Every provider rule. Keep prefixes literal: they feed the prefilter.
pub(super) static TOKEN_RULES: &[TokenRule] = &[
    // Cloud.
    rule("aws_access_key_id", "AKIA", UpperDigit, 16, 16, Plain),
    rule("aws_access_key_id", "ASIA", UpperDigit, 16, 16, Plain),
    rule("aws_access_key_id", "ABIA", UpperDigit, 16, 16, Plain),
    rule("aws_access_key_id", "ACCA", UpperDigit, 16, 16, Plain),
    rule("google_api_key", "AIza", Url, 35, 35, Plain),
    rule("google_oauth_secret", "GOCSPX-", Url, 24, 40, Plain),
    rule("google_oauth_token", "ya29.", UrlDot, 30, ANY, Random),
    rule("google_refresh_token", "1//0", Url, 40, ANY, Random),
    rule("alibaba_access_key", "LTAI", Alnum, 12, 24, NotPhrase),
    // Code hosts.
    rule("github_token", "ghp_", Alnum, 36, 251, Crc32),
    rule("github_token", "gho_", Alnum, 36, 251, Crc32),
    rule("github_token", "ghu_", Alnum, 36, 251, Crc32),
    rule("github_token", "ghs_", Alnum, 36, 251, Crc32),
    rule("github_token", "ghr_", Alnum, 36, 251, Crc32),
    rule(
        "github_token",
        "github_pat_",
        AlnumUnderscore,
        70,
        251,
        Plain,
    ),
    rule("gitlab_token", "glpat-", UrlDot, 20, ANY, NotPhrase),
    rule("gitlab_token", "gloas-", UrlDot, 20, ANY, NotPhrase),
    rule("gitlab_token", "gldt-", UrlDot, 20, ANY, NotPhrase),
    rule("gitlab_token", "glrt-", UrlDot, 20, ANY, NotPhrase),
    rule("gitlab_token", "glrtr-", UrlDot, 20, ANY, NotPhrase),
    rule("gitlab_token", "glcbt-", UrlDot, 20, ANY, NotPhrase),
    rule("gitlab_token", "glptt-", UrlDot, 20, ANY, NotPhrase),
    rule("gitlab_token", "glft-", UrlDot, 20, ANY, NotPhrase),
    rule("gitlab_token", "glimt-", UrlDot, 20, ANY, NotPhrase),
    rule("gitlab_token", "glagent-", UrlDot, 20, ANY, NotPhrase),
    rule("gitlab_token", "glsoat-", UrlDot, 20, ANY, NotPhrase),
    rule("gitlab_token", "glffct-", UrlDot, 20, ANY, NotPhrase),
    rule("gitlab_token", "glwt-", UrlDot, 20, ANY, NotPhrase),
    rule("gitlab_runner_token", "GR1348941", Url, 20, ANY, Plain),
    rule("bitbucket_app_password", "ATBB", UrlPad, 24, ANY, Random),
    rule("atlassian_api_token", "ATATT", UrlPad, 40, ANY, Plain),
    rule("atlassian_api_token", "ATCTT", UrlPad, 40, ANY, Plain),
    // Model providers. `sk-` covers OpenAI (sk-proj-, sk-svcacct-,
    // sk-admin-), Anthropic (sk-ant-), OpenRouter (sk-or-), DeepSeek.
    rule("openai_key", "sk-", Url, 20, ANY, NotPhrase),
    rule("huggingface_token", "hf_", Alnum, 30, 40, NotPhrase),
    rule("huggingface_token", "api_org_", Alnum, 30, 40, Random),
    rule("groq_api_key", "gsk_", Alnum, 48, 56, Plain),
    rule("replicate_api_token", "r8_", Alnum, 37, 40, Random),
    rule("perplexity_api_key", "pplx-", Alnum, 40, 64, Plain),
    rule("xai_api_key", "xai-", Alnum, 60, 100, Plain),
    rule("fireworks_api_key", "fw_", Alnum, 20, 40, Random),
    rule(
        "langsmith_api_key",
        "lsv2_pt_",
        AlnumUnderscore,
        40,
        60,
        Plain,
    ),
    rule(
        "langsmith_api_key",
        "lsv2_sk_",
        AlnumUnderscore,
        40,
        60,
        Plain,
    ),
    rule("pinecone_api_key", "pcsk_", AlnumUnderscore, 40, ANY, Plain),
    rule("cerebras_api_key", "csk-", LowerDigit, 40, 60, Random),
    rule("tavily_api_key", "tvly-", Url, 30, ANY, Random),
    rule("firecrawl_api_key", "fc-", HexLower, 32, 32, Plain),
    rule("elevenlabs_api_key", "sk_", HexLower, 48, 48, Plain),
    // Payments.
    rule("stripe_secret_key", "sk_live_", Alnum, 20, 247, Plain),
    rule("stripe_secret_key", "sk_test_", Alnum, 20, 247, Plain),
    rule("stripe_restricted_key", "rk_live_", Alnum, 20, 247, Plain),
    rule("stripe_restricted_key", "rk_test_", Alnum, 20, 247, Plain),
    rule("stripe_webhook_secret", "whsec_", Base64, 24, 100, Plain),
    // Adyen: `AQE`, base64 parts joined by `=-`, a last part of punctuation.
    rule("adyen_api_key", "AQE", Graphic, 80, 400, Random),
    // What `django-admin startproject` writes: 50 characters of
    // `a-z0-9!@#$%^&*(-_=+)` after the prefix.
    rule(
        "django_secret_key",
        "django-insecure-",
        Graphic,
        40,
        60,
        Plain,
    ),
    // Laravel's encrypted cookies and payloads: base64 of `{"iv":…`.
    rule("laravel_encrypted", "eyJpdiI6", Base64, 60, ANY, Plain),
    rule("square_token", "sq0atp-", Url, 22, 60, Plain),
    rule("square_token", "sq0csp-", Url, 22, 60, Plain),
    // Chat.
    rule("slack_token", "xoxb-", Url, 20, ANY, NotPhrase),
    rule("slack_token", "xoxp-", Url, 20, ANY, NotPhrase),
    rule("slack_token", "xoxa-", Url, 20, ANY, NotPhrase),
    rule("slack_token", "xoxo-", Url, 20, ANY, NotPhrase),
    rule("slack_token", "xoxs-", Url, 20, ANY, NotPhrase),
    rule("slack_token", "xoxr-", Url, 20, ANY, NotPhrase),
    rule("slack_token", "xoxe-", Url, 20, ANY, NotPhrase),
    // The `d` cookie of a Slack browser session.
    rule("slack_token", "xoxd-", Url, 20, ANY, NotPhrase),
    rule("slack_token", "xoxe.xoxp-", Url, 20, ANY, NotPhrase),
    rule("slack_token", "xapp-", Url, 20, ANY, NotPhrase),
    // Twitch chat (IRC `PASS oauth:…`): 30 lower-case letters and digits.
    rule("twitch_oauth_token", "oauth:", LowerDigit, 30, 30, Random),
    // Package registries.
    rule("npm_token", "npm_", Alnum, 36, 36, Crc32),
    rule("pypi_token", "pypi-Ag", Url, 50, ANY, Plain),
    rule("crates_io_token", "cio", Alnum, 32, 32, Random),
    rule("rubygems_api_key", "rubygems_", HexLower, 48, 48, Plain),
    rule("nuget_api_key", "oy2", LowerDigit, 43, 43, Random),
    rule("dockerhub_token", "dckr_pat_", Url, 20, ANY, Plain),
    rule("clojars_token", "CLOJARS_", LowerDigit, 40, 80, Plain),
    // SaaS.
    rule("sendgrid_api_key", "SG.", UrlDot, 60, 80, Random),
    rule("twilio_api_key", "SK", HexLower, 32, 32, Random),
    rule("mailgun_api_key", "key-", HexLower, 32, 32, Plain),
    rule("shopify_token", "shpat_", Hex, 32, 32, Plain),
    rule("shopify_token", "shpss_", Hex, 32, 32, Plain),
    rule("shopify_token", "shpca_", Hex, 32, 32, Plain),
    rule("shopify_token", "shppa_", Hex, 32, 32, Plain),
    rule("digitalocean_token", "dop_v1_", HexLower, 64, 64, Plain),
    rule("digitalocean_token", "doo_v1_", HexLower, 64, 64, Plain),
    rule("digitalocean_token", "dor_v1_", HexLower, 64, 64, Plain),
    rule("heroku_api_key", "HRKU-", Url, 30, ANY, Plain),
    rule("vault_token", "hvs.", Url, 24, ANY, Random),
    rule("vault_token", "hvb.", Url, 24, ANY, Random),
    rule("vault_token", "hvr.", Url, 24, ANY, Random),
    // Braintree: `access_token$<environment>$<merchant>$<32 hex>`.
    rule(
        "braintree_access_token",
        "access_token$production$",
        AlnumDollar,
        40,
        60,
        Plain,
    ),
    rule(
        "braintree_access_token",
        "access_token$sandbox$",
        AlnumDollar,
        40,
        60,
        Plain,
    ),
    // X (Twitter) app-only bearer tokens: 21 `A`s, then URL-encoded base64.
    rule(
        "twitter_bearer_token",
        "AAAAAAAAAAAAAAAAAAAAA",
        AlnumPercent,
        50,
        ANY,
        Random,
    ),
    // LaunchDarkly SDK and mobile keys: a UUID after `sdk-` / `mob-`.
    rule("launchdarkly_key", "sdk-", HexDash, 36, 36, Plain),
    rule("launchdarkly_key", "mob-", HexDash, 36, 36, Plain),
    // Tencent Cloud SecretId, OneSignal REST API keys.
    rule("tencent_secret_id", "AKID", Alnum, 32, 32, Random),
    rule(
        "onesignal_api_key",
        "os_v2_app_",
        LowerDigit,
        90,
        130,
        Plain,
    ),
    rule("doppler_token", "dp.pt.", Alnum, 40, 48, Plain),
    rule("doppler_token", "dp.st.", UrlDot, 40, 64, Plain),
    rule("doppler_token", "dp.ct.", Alnum, 40, 48, Plain),
    rule("doppler_token", "dp.sa.", Alnum, 40, 48, Plain),
    rule("doppler_token", "dp.scim.", Alnum, 40, 48, Plain),
    rule("doppler_token", "dp.audit.", Alnum, 40, 48, Plain),
    rule("linear_api_key", "lin_api_", Alnum, 40, 64, Plain),
    rule("linear_api_key", "lin_oauth_", Alnum, 40, 64, Plain),
    rule("notion_token", "secret_", Alnum, 43, 43, Random),
    rule("notion_token", "ntn_", Alnum, 40, 50, Random),
    rule("sentry_token", "sntrys_", Base64, 50, ANY, Plain),
    rule("sentry_token", "sntryu_", HexLower, 64, 64, Plain),
    rule("newrelic_key", "NRAK-", UpperDigit, 27, 27, Plain),
    rule("newrelic_key", "NRAA-", Alnum, 27, 40, Plain),
    rule("newrelic_key", "NRII-", Url, 27, 40, Plain),
    rule("newrelic_key", "NRRA-", Alnum, 27, 45, Plain),
    rule("postman_api_key", "PMAK-", HexDash, 59, 59, Plain),
    rule("pulumi_token", "pul-", HexLower, 40, 40, Plain),
    rule("grafana_token", "glc_", UrlPad, 32, ANY, Plain),
    rule("grafana_token", "glsa_", AlnumUnderscore, 32, 48, Plain),
    rule("figma_token", "figd_", Url, 40, ANY, Plain),
    rule("databricks_token", "dapi", HexLower, 32, 32, Random),
    rule("supabase_token", "sbp_", HexLower, 40, 40, Plain),
    rule("supabase_token", "sb_secret_", Url, 20, ANY, Plain),
    rule("tailscale_key", "tskey-", Url, 20, ANY, NotPhrase),
    rule("buildkite_token", "bkua_", HexLower, 40, 40, Plain),
    // age: 58 data characters; any length near it goes whole.
    rule(
        "age_secret_key",
        "AGE-SECRET-KEY-1",
        Bech32Upper,
        40,
        100,
        Plain,
    ),
    rule(
        "age_secret_key",
        "age-secret-key-1",
        Bech32Lower,
        40,
        100,
        Plain,
    ),
    rule("onepassword_token", "ops_eyJ", UrlPad, 100, ANY, Plain),
    rule("mapbox_secret_token", "sk.eyJ", UrlDot, 60, ANY, Plain),
    rule("netlify_token", "nfp_", Alnum, 36, 40, Plain),
    rule("flyio_token", "fo1_", Url, 40, ANY, Plain),
    rule("flyio_token", "fm2_", Base64, 60, ANY, Plain),
    // `fly tokens create` prints the scheme with the token, as one value.
    rule("flyio_token", "FlyV1 fm2_", Base64, 60, ANY, Plain),
    rule("planetscale_token", "pscale_tkn_", UrlDot, 32, ANY, Plain),
    rule("planetscale_token", "pscale_pw_", UrlDot, 32, ANY, Plain),
    rule("contentful_token", "CFPAT-", Url, 40, 50, Plain),
    rule("dynatrace_token", "dt0c01.", UrlDot, 70, 100, Plain),
    rule("prefect_api_key", "pnu_", Alnum, 36, 36, Plain),
    rule("sourcegraph_token", "sgp_", AlnumUnderscore, 40, ANY, Plain),
    rule("jfrog_api_key", "AKCp", Alnum, 60, 90, Random),
    // A JFrog reference token is base64 of `reftkn:01:…`.
    rule("jfrog_token", "cmVmdGtuOjAxOj", UrlPad, 40, ANY, Plain),
    rule("sonarqube_token", "squ_", HexLower, 40, 40, Plain),
    rule("sonarqube_token", "sqp_", HexLower, 40, 40, Plain),
    rule("sonarqube_token", "sqa_", HexLower, 40, 40, Plain),
    rule("circleci_token", "CCIPAT_", Url, 40, ANY, Plain),
    rule("render_api_key", "rnd_", Alnum, 28, 40, Random),
    rule("neon_api_key", "napi_", Alnum, 60, 72, Random),
    rule("hubspot_token", "pat-na1-", HexDash, 36, 36, Plain),
    rule("hubspot_token", "pat-eu1-", HexDash, 36, 36, Plain),
    rule("brevo_api_key", "xkeysib-", Url, 70, 90, Plain),
    rule("brevo_smtp_key", "xsmtpsib-", Url, 70, 90, Plain),
    rule("resend_api_key", "re_", Url, 30, 40, Random),
    rule("flutterwave_secret_key", "FLWSECK-", Url, 32, 40, Plain),
    rule(
        "flutterwave_secret_key",
        "FLWSECK_TEST-",
        Url,
        32,
        40,
        Plain,
    ),
    rule("shippo_token", "shippo_live_", HexLower, 40, 40, Plain),
    rule("shippo_token", "shippo_test_", HexLower, 40, 40, Plain),
    rule("easypost_api_key", "EZAK", Alnum, 54, 54, Random),
    rule("easypost_api_key", "EZTK", Alnum, 54, 54, Random),
    rule("duffel_token", "duffel_live_", Url, 40, 50, Plain),
    rule("duffel_token", "duffel_test_", Url, 40, 50, Plain),
    rule("typeform_token", "tfp_", UrlDot, 40, 70, Random),
    rule("honeycomb_key", "hcaik_", Alnum, 50, 70, Plain),
    rule("honeycomb_key", "hcxik_", Alnum, 50, 70, Plain),
    rule("honeycomb_key", "hcxlk_", Alnum, 50, 70, Plain),
    rule("honeycomb_key", "hcamk_", Alnum, 50, 70, Plain),
    rule("stytch_secret", "secret-live-", Url, 30, 40, Random),
    rule("stytch_secret", "secret-test-", Url, 30, 40, Random),
    rule("dropbox_token", "sl.", UrlDot, 120, ANY, Random),
    rule("adafruit_io_key", "aio_", Alnum, 28, 28, Random),
    rule(
        "cloudflare_origin_ca_key",
        "v1.0-",
        HexDash,
        150,
        200,
        Plain,
    ),
    rule("planetscale_token", "pscale_oauth_", UrlDot, 32, ANY, Plain),
    // Square's production access tokens, then Facebook / Meta Graph tokens.
    rule("square_token", "EAAA", Url, 56, 70, Random),
    rule("facebook_access_token", "EAA", Alnum, 90, 512, Random),
    // AWS Bedrock API keys are base64 of `BedrockAPIKey-…`.
    rule(
        "aws_bedrock_api_key",
        "ABSKQmVkcm9ja0FQSUtleS",
        Base64,
        40,
        ANY,
        Plain,
    ),
    // BIP32 extended private keys (mainnet and testnet).
    rule("bip32_private_key", "xprv", Base58, 100, 112, Random),
    rule("bip32_private_key", "tprv", Base58, 100, 112, Random),
    // Laravel's APP_KEY as `php artisan key:generate --show` prints it.
    rule("laravel_app_key", "base64:", Base64, 43, 44, Random),
];

/// Tries rule `rule` on the prefix found at `at`; pushes the token span.
pub(super) fn match_token(text: &[u8], at: usize, rule: &TokenRule, out: &mut Vec<Finding>) {
    if let Some(end) = token_end(text, at, rule) {
        out.push(Finding {
            rule: rule.name,
            start: at,
            end,
        });
    }
}

/// End of a token matching `rule` whose prefix starts at `at`.
fn token_end(text: &[u8], at: usize, rule: &TokenRule) -> Option<usize> {
    let prefix = rule.prefix.as_bytes();
    if !text[at..].starts_with(prefix) || !starts_word(text, at) {
        return None;
    }
    // A base64url body that runs on backwards (`…L9_sk-4uh…` in a JWKS
    // modulus) is inside a longer string: the prefix is there by chance.
    if rule.body == Alphabet::Url
        && at > 0
        && matches!(text[at - 1], b'_' | b'-')
        && at >= 2
        && alnum(text[at - 2])
    {
        return None;
    }
    let body_start = at + prefix.len();
    let mut end = body_start;
    while end < text.len() && end - body_start <= rule.max && rule.body.has(text[end]) {
        end += 1;
    }
    let len = end - body_start;
    if len < rule.min || len > rule.max {
        return None;
    }
    // Hex, digit and upper-case bodies must also end at a word boundary
    // (`AKIA` + 16 then more letters is something else).
    if end < text.len() && alnum(text[end]) {
        return None;
    }
    let token = &text[at..end];
    let body = &text[body_start..end];
    if is_harmless_token(token) || is_harmless_token(body) {
        return None;
    }
    let ok = match rule.check {
        Check::None => true,
        Check::Random => looks_random(body),
        Check::NotPhrase => !is_phrase(body),
        Check::Crc32 => {
            (len == 36 && checksum_suffix(&body[..30]) == body[30..36]) || looks_random(body)
        }
    };
    ok.then_some(end)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn find(text: &str) -> Vec<(&'static str, &str)> {
        let mut out = Vec::new();
        for r in TOKEN_RULES {
            let mut from = 0;
            while let Some(p) = text[from..].find(r.prefix) {
                match_token(text.as_bytes(), from + p, r, &mut out);
                from += p + 1;
            }
        }
        out.iter()
            .map(|f| (f.rule, &text[f.start..f.end]))
            .collect()
    }

    fn github(random: &str) -> String {
        let sum = checksum_suffix(random.as_bytes());
        format!("ghp_{random}{}", std::str::from_utf8(&sum).unwrap())
    }

    #[test]
    fn github_checksum_accepts_even_plain_bodies() {
        let t = github("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaa");
        assert_eq!(
            find(&format!("x {t} y")),
            vec![("github_token", t.as_str())]
        );
        // Same plain body with a wrong checksum: neither valid nor random.
        let bad = "ghp_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa";
        assert!(find(bad).is_empty());
    }

    #[test]
    fn prefixes_need_a_word_start_and_exact_case() {
        let body = "a1B2c3D4e5F6g7H8i9J0k1L2m3N4";
        assert!(find(&format!("task-{body}")).is_empty());
        assert!(find(&format!("risk-{body}")).is_empty());
        assert!(find(&format!("SK-{body}")).is_empty());
        assert_eq!(find(&format!("(sk-{body})")).len(), 1);
    }

    #[test]
    fn braintree_access_tokens() {
        let braintree = "access_token$production$oo56mddeclfvr2h8$253e5387661c9202bf05c4fa5b1c2a78";
        assert_eq!(
            find(&format!("using {braintree} against")),
            [("braintree_access_token", braintree)]
        );
    }

    #[test]
    fn fixed_lengths_are_exact() {
        assert_eq!(find("AKIAABCDEFGHIJKLMNOP").len(), 1);
        assert!(find("AKIAABCDEFGHIJKLMNOPQ").is_empty());
        assert!(find("AKIAABCDEFGHIJKLMNO").is_empty());
        assert!(find(concat!("AKIAIOSFODNN7", "EXAMPLE")).is_empty());
    }

    #[test]
    fn phrases_and_placeholders_are_not_tokens() {
        assert!(find("sk-learn-compatible-interface-docs").is_empty());
        assert!(find("sk-xxxxxxxxxxxxxxxxxxxxxxxxxxxxxx").is_empty());
        assert!(find(concat!("xoxb-", "not-a-real-token-this-will-not-work")).is_empty());
        assert!(find("pk_live_a1B2c3D4e5F6g7H8i9J0k1L2").is_empty());
    }
}
