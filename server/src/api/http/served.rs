//! How a file of the web client is answered: in the content coding the
//! client prefers of those it has (brotli, gzip, none; `Accept-Encoding`),
//! with a strong ETag of that form (`If-None-Match` gets a `304`), and
//! cached for good only at its versioned URL (`?v=` its current hash, as
//! the pages ask for their bundles); anywhere else it is revalidated.

use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};

use crate::assets::Asset;

/// `Cache-Control` of a file at its versioned URL: its bytes never change.
const IMMUTABLE: &str = "public, max-age=31536000, immutable";
/// `Cache-Control` of everything else: kept, but checked (ETag) before use.
const REVALIDATE: &str = "no-cache";

/// A content coding the server has files in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Coding {
    /// `br`
    Brotli,
    /// `gzip`
    Gzip,
    /// No coding.
    Identity,
}

impl Coding {
    /// Its name in `Accept-Encoding` and `Content-Encoding`.
    fn token(self) -> &'static str {
        match self {
            Coding::Brotli => "br",
            Coding::Gzip => "gzip",
            Coding::Identity => "identity",
        }
    }
}

/// How much `accept` (the `Accept-Encoding` value) wants `coding`, as a
/// q-value in thousandths: its own entry's (`x-gzip` counts as `gzip`),
/// else `*`'s, else none for a coding and the least acceptable for
/// identity, which is acceptable unless excluded (RFC 9110, 12.5.3). An
/// entry whose q-value does not parse is ignored.
fn weight(accept: &str, coding: Coding) -> u16 {
    let mut star = None;
    for entry in accept.split(',') {
        let mut parts = entry.split(';');
        let name = parts.next().unwrap_or_default().trim();
        if name.is_empty() {
            continue;
        }
        let mut q = Some(1000);
        for parameter in parts {
            if let Some((key, value)) = parameter.split_once('=') {
                if key.trim().eq_ignore_ascii_case("q") {
                    q = qvalue(value.trim());
                }
            }
        }
        let Some(q) = q else { continue };
        let named = name.eq_ignore_ascii_case(coding.token())
            || (coding == Coding::Gzip && name.eq_ignore_ascii_case("x-gzip"));
        if named {
            return q;
        }
        if name == "*" && star.is_none() {
            star = Some(q);
        }
    }
    match (star, coding) {
        (Some(q), _) => q,
        (None, Coding::Identity) => 1,
        (None, _) => 0,
    }
}

/// An RFC 9110 q-value (`0`, `0.5`, `1.000`, at most three decimals) in
/// thousandths.
fn qvalue(text: &str) -> Option<u16> {
    let (whole, fraction) = text.split_once('.').unwrap_or((text, ""));
    if fraction.len() > 3 || !fraction.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let thousandths: u16 = format!("{fraction:0<3}").parse().ok()?;
    match whole {
        "0" => Some(thousandths),
        "1" if thousandths == 0 => Some(1000),
        _ => None,
    }
}

/// The form of `asset` to send for an `Accept-Encoding` of `accept`
/// (`None`: no header, so no coding): the coding with the highest q-value
/// among the forms it has, brotli before gzip before none at equal ones;
/// none when nothing acceptable is left.
pub fn negotiate(accept: Option<&str>, asset: &Asset) -> Coding {
    let Some(accept) = accept else {
        return Coding::Identity;
    };
    let mut best = (weight(accept, Coding::Identity), Coding::Identity);
    for (coding, form) in [(Coding::Gzip, asset.gzip), (Coding::Brotli, asset.br)] {
        let q = weight(accept, coding);
        if form.is_some() && q > 0 && q >= best.0 {
            best = (q, coding);
        }
    }
    best.1
}

/// The strong ETag of `asset` sent in `coding`: each form is a
/// representation of its own, so each has its own tag.
pub fn etag(asset: &Asset, coding: Coding) -> String {
    match coding {
        Coding::Brotli => format!("\"{}-br\"", asset.hash),
        Coding::Gzip => format!("\"{}-gz\"", asset.hash),
        Coding::Identity => format!("\"{}\"", asset.hash),
    }
}

/// Whether an `If-None-Match` value names `tag` (or is `*`), by the weak
/// comparison RFC 9110 asks for here.
fn none_match(if_none_match: &str, tag: &str) -> bool {
    if_none_match.split(',').map(str::trim).any(|candidate| {
        candidate == "*" || candidate.strip_prefix("W/").unwrap_or(candidate) == tag
    })
}

/// The answer to a GET (or HEAD) of `asset` with the request's `headers`;
/// `version` is its URL's `?v=`, if any (pages have none). `Vary:
/// Accept-Encoding` on every answer, as the body depends on it.
pub fn respond(asset: &'static Asset, headers: &HeaderMap, version: Option<&str>) -> Response {
    let accept = joined(headers, header::ACCEPT_ENCODING);
    let coding = negotiate(accept.as_deref(), asset);
    let tag = etag(asset, coding);
    let not_modified =
        joined(headers, header::IF_NONE_MATCH).is_some_and(|value| none_match(&value, &tag));
    let mut response = if not_modified {
        StatusCode::NOT_MODIFIED.into_response()
    } else {
        let body = match coding {
            Coding::Brotli => asset.br,
            Coding::Gzip => asset.gzip,
            Coding::Identity => None,
        };
        let mut response = body.unwrap_or(asset.identity).into_response();
        let out = response.headers_mut();
        out.insert(
            header::CONTENT_TYPE,
            HeaderValue::from_static(asset.content_type),
        );
        if coding != Coding::Identity {
            out.insert(
                header::CONTENT_ENCODING,
                HeaderValue::from_static(coding.token()),
            );
        }
        response
    };
    let out = response.headers_mut();
    out.insert(header::VARY, HeaderValue::from_static("Accept-Encoding"));
    if let Ok(tag) = HeaderValue::from_str(&tag) {
        out.insert(header::ETAG, tag);
    }
    let versioned = version == Some(asset.hash);
    out.insert(
        header::CACHE_CONTROL,
        HeaderValue::from_static(if versioned { IMMUTABLE } else { REVALIDATE }),
    );
    response
}

/// Every value of header `name`, joined by commas (a list header may come
/// in several lines); `None` when there is none, or one is not text.
fn joined(headers: &HeaderMap, name: header::HeaderName) -> Option<String> {
    let values: Option<Vec<&str>> = headers
        .get_all(name)
        .iter()
        .map(|value| value.to_str().ok())
        .collect();
    values.filter(|v| !v.is_empty()).map(|v| v.join(","))
}

#[cfg(test)]
mod tests {
    use super::*;

    static BOTH: Asset = Asset {
        name: "x.js",
        content_type: "text/javascript; charset=utf-8",
        hash: "0123456789abcdef",
        identity: b"identity",
        br: Some(b"br"),
        gzip: Some(b"gz"),
    };
    static GZIP_ONLY: Asset = Asset { br: None, ..BOTH };
    static NEITHER: Asset = Asset {
        br: None,
        gzip: None,
        ..BOTH
    };

    fn of(accept: &str) -> Coding {
        negotiate(Some(accept), &BOTH)
    }

    #[test]
    fn brotli_before_gzip_before_identity() {
        assert_eq!(of("gzip, deflate, br, zstd"), Coding::Brotli);
        assert_eq!(of("gzip, deflate"), Coding::Gzip);
        assert_eq!(of("deflate"), Coding::Identity);
        assert_eq!(of("identity"), Coding::Identity);
        assert_eq!(of("*"), Coding::Brotli);
        assert_eq!(of("BR"), Coding::Brotli, "names are case-insensitive");
        assert_eq!(of("x-gzip"), Coding::Gzip);
        assert_eq!(negotiate(Some("br, gzip"), &GZIP_ONLY), Coding::Gzip);
        assert_eq!(negotiate(Some("br, gzip"), &NEITHER), Coding::Identity);
    }

    #[test]
    fn no_header_or_an_empty_one_means_identity() {
        assert_eq!(negotiate(None, &BOTH), Coding::Identity);
        assert_eq!(of(""), Coding::Identity);
        assert_eq!(of(" , "), Coding::Identity);
    }

    #[test]
    fn q_values_rank_and_zero_refuses() {
        assert_eq!(of("br;q=0, gzip"), Coding::Gzip);
        assert_eq!(of("br; q=0.000, gzip;q=0.5"), Coding::Gzip);
        assert_eq!(of("br;q=0.5, gzip;q=0.8"), Coding::Gzip);
        assert_eq!(of("br;q=0.8, gzip;q=0.8"), Coding::Brotli);
        assert_eq!(of("br;q=0.1"), Coding::Brotli, "over identity's default");
        assert_eq!(of("identity;q=1, br;q=0.5"), Coding::Identity);
        assert_eq!(of("*;q=0, gzip"), Coding::Gzip);
        assert_eq!(
            of("*;q=0"),
            Coding::Identity,
            "nothing acceptable: no coding"
        );
        assert_eq!(of("br;q=0, gzip;q=0"), Coding::Identity);
        assert_eq!(of("gzip;Q=0, br;q=0"), Coding::Identity);
        assert_eq!(of("*, br;q=0"), Coding::Gzip, "an entry of its own beats *");
    }

    #[test]
    fn malformed_q_values_are_ignored() {
        assert_eq!(qvalue("1"), Some(1000));
        assert_eq!(qvalue("1.000"), Some(1000));
        assert_eq!(qvalue("0.25"), Some(250));
        assert_eq!(qvalue("0."), Some(0));
        for bad in ["1.5", "2", "0.1234", "-0", "", "x", "0.5x", ".5"] {
            assert_eq!(qvalue(bad), None, "{bad}");
        }
        assert_eq!(of("br;q=2, gzip"), Coding::Gzip);
        assert_eq!(of("br;q=high"), Coding::Identity);
    }

    #[test]
    fn each_form_has_its_tag_and_if_none_match_compares_weakly() {
        assert_eq!(etag(&BOTH, Coding::Identity), "\"0123456789abcdef\"");
        assert_eq!(etag(&BOTH, Coding::Brotli), "\"0123456789abcdef-br\"");
        assert_eq!(etag(&BOTH, Coding::Gzip), "\"0123456789abcdef-gz\"");
        let tag = "\"0123456789abcdef-br\"";
        assert!(none_match(tag, tag));
        assert!(none_match("\"other\", W/\"0123456789abcdef-br\"", tag));
        assert!(none_match("*", tag));
        assert!(!none_match("\"0123456789abcdef\"", tag));
        assert!(!none_match("0123456789abcdef-br", tag), "tags are quoted");
    }

    #[test]
    fn answers_carry_coding_vary_tag_and_caching() {
        let mut headers = HeaderMap::new();
        headers.insert(header::ACCEPT_ENCODING, HeaderValue::from_static("gzip"));
        headers.append(header::ACCEPT_ENCODING, HeaderValue::from_static("br"));
        let response = respond(&BOTH, &headers, Some(BOTH.hash));
        assert_eq!(response.status(), StatusCode::OK);
        let got = |response: &Response, name| {
            response
                .headers()
                .get(name)
                .and_then(|v| v.to_str().ok())
                .map(str::to_owned)
        };
        assert_eq!(
            got(&response, header::CONTENT_ENCODING).as_deref(),
            Some("br")
        );
        assert_eq!(
            got(&response, header::VARY).as_deref(),
            Some("Accept-Encoding")
        );
        assert_eq!(
            got(&response, header::CACHE_CONTROL).as_deref(),
            Some(IMMUTABLE)
        );
        let stale = respond(&BOTH, &headers, Some("ffffffffffffffff"));
        assert_eq!(
            got(&stale, header::CACHE_CONTROL).as_deref(),
            Some(REVALIDATE)
        );
        headers.insert(
            header::IF_NONE_MATCH,
            HeaderValue::from_static("\"0123456789abcdef-br\""),
        );
        let cached = respond(&BOTH, &headers, None);
        assert_eq!(cached.status(), StatusCode::NOT_MODIFIED);
        assert_eq!(
            got(&cached, header::VARY).as_deref(),
            Some("Accept-Encoding")
        );
        assert_eq!(got(&cached, header::CONTENT_ENCODING), None);
        headers.insert(header::ACCEPT_ENCODING, HeaderValue::from_static("gzip"));
        let other_form = respond(&BOTH, &headers, None);
        assert_eq!(
            other_form.status(),
            StatusCode::OK,
            "the gzip form's tag differs"
        );
    }
}
