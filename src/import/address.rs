//! Service addresses written in configuration values: `foo`, `foo:8080`,
//! `foo.shop`, `http://foo.shop.svc.cluster.local:8080/path`,
//! `redis://user@foo:6379/0`. This is the only place that decides what text
//! counts as naming a Service; nothing else is guessed.

/// How an address was written, which decides what it may match.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Form {
    /// A bare word (`foo`): counts only when a declared Service has that name.
    Bare,
    /// `foo.ns`: counts only when `ns` is a namespace the inputs use.
    ShortNamespace,
    /// `foo:8080`: an address by its shape, even when no Service matches.
    Port,
    /// `scheme://foo…`: an address by its shape.
    Scheme,
    /// `foo.ns.svc…`: the cluster DNS name of a Service.
    ServiceDns,
    /// `foo-0.bar`: a StatefulSet pod's name under its governing Service
    /// `bar` (written with another pod prefix than `bar-N`, or without a
    /// port or scheme): counts only when a declared Service has that name.
    Pod,
}

impl Form {
    /// Whether the text is an address by its shape alone, so that a name
    /// with no Service behind it is worth reporting as not deployed.
    pub fn is_explicit(self) -> bool {
        matches!(self, Form::Port | Form::Scheme | Form::ServiceDns)
    }
}

/// A Service named in a value.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Address {
    /// The Service's name.
    pub name: String,
    /// Its namespace, when written.
    pub namespace: Option<String>,
    /// How it was written.
    pub form: Form,
}

/// Every address in `value`, in order, without repeats. The value is cut
/// into words at blanks and at the punctuation that cannot be part of an
/// address (`,;=()"'` …), so `--backend=foo:80,bar:81` gives two. A bare
/// word counts only when it is the whole value, or the value of a
/// `--flag=word`: a Service's name in prose (a shell script's `echo`) is
/// not a call.
pub fn addresses(value: &str) -> Vec<Address> {
    let words: Vec<&str> = value
        .split(is_separator)
        .filter(|w| !w.is_empty())
        .collect();
    let alone = match words.as_slice() {
        [_] => true,
        [flag, _] => flag.starts_with('-') && value.contains('='),
        _ => false,
    };
    // Order kept, repeats dropped through a set: one value may list
    // hundreds of thousands of addresses.
    let mut found: Vec<Address> = Vec::new();
    let mut seen: std::collections::HashSet<Address> = std::collections::HashSet::new();
    for word in words {
        for address in [address(word), pod_address(word)].into_iter().flatten() {
            if (alone || address.form != Form::Bare) && !seen.contains(&address) {
                seen.insert(address.clone());
                found.push(address);
            }
        }
    }
    found
}

/// The governing Service a StatefulSet pod's DNS name goes through:
/// `kafka-0.kafka:9092` → `kafka`, `zk-1.zk-hs.data.svc.cluster.local` →
/// `zk-hs` in `data`. A pod name is a Service-like name ending in `-N`.
fn pod_address(word: &str) -> Option<Address> {
    let (scheme, rest) = match word.split_once("://") {
        Some((scheme, rest)) if is_scheme(scheme) => (true, rest),
        Some(_) => return None,
        None => (false, word),
    };
    let end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    let authority = &rest[..end];
    let host_port = authority.rsplit('@').next().unwrap_or(authority);
    let (host, port) = match host_port.split_once(':') {
        Some((host, port)) if !port.is_empty() && port.bytes().all(|b| b.is_ascii_digit()) => {
            (host, true)
        }
        Some(_) => return None,
        None => (host_port, false),
    };
    let host = host.strip_suffix('.').unwrap_or(host);
    let labels: Vec<&str> = host.split('.').collect();
    let (pod, service, namespace, dns) = match labels.as_slice() {
        [pod, service] => (*pod, *service, None, false),
        [pod, service, namespace] => (*pod, *service, Some(*namespace), false),
        [pod, service, namespace, "svc", ..] => (*pod, *service, Some(*namespace), true),
        _ => return None,
    };
    let (prefix, ordinal) = pod.rsplit_once('-')?;
    if ordinal.is_empty() || !ordinal.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    if !is_service_name(prefix) || !is_service_name(service) {
        return None;
    }
    if let Some(namespace) = namespace
        && !is_namespace(namespace)
    {
        return None;
    }
    // `kafka-0.kafka:9092` is an address by its shape; `api-1.example:80`
    // (a pod prefix unlike the Service) only counts against a Service.
    let form = if dns {
        Form::ServiceDns
    } else if namespace.is_none() && prefix == service && scheme {
        Form::Scheme
    } else if namespace.is_none() && prefix == service && port {
        Form::Port
    } else {
        Form::Pod
    };
    Some(Address {
        name: service.to_owned(),
        namespace: namespace.map(str::to_owned),
        form,
    })
}

fn is_separator(c: char) -> bool {
    c.is_whitespace()
        || matches!(
            c,
            ',' | ';'
                | '='
                | '"'
                | '\''
                | '('
                | ')'
                | '<'
                | '>'
                | '|'
                | '`'
                | '{'
                | '}'
                | '$'
                | '\\'
        )
}

/// The address one word names, if any.
fn address(word: &str) -> Option<Address> {
    let (scheme, rest) = match word.split_once("://") {
        Some((scheme, rest)) if is_scheme(scheme) => (true, rest),
        Some(_) => return None,
        None => (false, word),
    };
    let end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    let (authority, path) = rest.split_at(end);
    // `user:password@host`: the host is after the last `@`.
    let host_port = authority.rsplit('@').next().unwrap_or(authority);
    let (host, port) = match host_port.split_once(':') {
        Some((host, port)) => {
            if port.is_empty() || !port.bytes().all(|b| b.is_ascii_digit()) {
                return None;
            }
            (host, true)
        }
        None => (host_port, false),
    };
    let host = host.strip_suffix('.').unwrap_or(host);
    let labels: Vec<&str> = host.split('.').collect();
    let (name, namespace, dns) = match labels.as_slice() {
        [name] => (*name, None, false),
        [name, namespace] => (*name, Some(*namespace), false),
        [name, namespace, "svc", ..] => (*name, Some(*namespace), true),
        _ => return None,
    };
    if !is_service_name(name) || name == "localhost" {
        return None;
    }
    if let Some(namespace) = namespace
        && !is_namespace(namespace)
    {
        return None;
    }
    let form = if dns {
        Form::ServiceDns
    } else if scheme {
        Form::Scheme
    } else if namespace.is_some() {
        // `example.com:443` is no Service: a short name with a namespace
        // only counts when the namespace is known, whatever follows it.
        Form::ShortNamespace
    } else if port {
        Form::Port
    } else if authority.len() == word.len() && path.is_empty() {
        Form::Bare
    } else {
        return None;
    };
    Some(Address {
        name: name.to_owned(),
        namespace: namespace.map(str::to_owned),
        form,
    })
}

fn is_scheme(text: &str) -> bool {
    let mut chars = text.chars();
    chars.next().is_some_and(|c| c.is_ascii_lowercase())
        && chars.all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || "+.-".contains(c))
}

/// A Service name: an RFC 1035 label (lower-case letter first, then
/// letters, digits and `-`, not ending in `-`, at most 63 characters).
fn is_service_name(text: &str) -> bool {
    text.len() <= 63 && text.starts_with(|c: char| c.is_ascii_lowercase()) && is_label(text)
}

/// A namespace: an RFC 1123 label (may start with a digit).
fn is_namespace(text: &str) -> bool {
    text.len() <= 63 && !text.is_empty() && is_label(text)
}

fn is_label(text: &str) -> bool {
    text.bytes()
        .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
        && !text.starts_with('-')
        && !text.ends_with('-')
}

#[cfg(test)]
mod tests {
    use super::*;

    fn one(value: &str) -> Option<(String, Option<String>, Form)> {
        let found = addresses(value);
        assert!(found.len() <= 1, "{found:?}");
        found
            .into_iter()
            .next()
            .map(|a| (a.name, a.namespace, a.form))
    }

    fn addr(name: &str, namespace: Option<&str>, form: Form) -> (String, Option<String>, Form) {
        (name.to_owned(), namespace.map(str::to_owned), form)
    }

    #[test]
    fn host_lists_and_statefulset_pod_names_are_read() {
        let found = addresses("kafka-0.kafka:9092,kafka-1.kafka:9092,kafka-2.kafka:9092");
        // Each word also reads as `kafka-N` in a namespace `kafka`, which
        // only counts if that namespace exists; the pod reading is `kafka`.
        let pods: Vec<&Address> = found.iter().filter(|a| a.name == "kafka").collect();
        assert_eq!(pods.len(), 1, "{found:?}");
        assert_eq!(pods[0].form, Form::Port);
        let full = addresses("zk-1.zk-hs.data.svc.cluster.local:2181");
        assert!(full.contains(&Address {
            name: "zk-hs".to_owned(),
            namespace: Some("data".to_owned()),
            form: Form::ServiceDns
        }));
        // Not a pod name: no ordinal.
        assert!(
            addresses("api.example:80")
                .iter()
                .all(|a| a.form != Form::Pod)
        );
    }

    #[test]
    fn every_written_form_is_read() {
        assert_eq!(one("foo"), Some(addr("foo", None, Form::Bare)));
        assert_eq!(one("foo:8080"), Some(addr("foo", None, Form::Port)));
        assert_eq!(
            one("foo.shop"),
            Some(addr("foo", Some("shop"), Form::ShortNamespace))
        );
        assert_eq!(
            one("foo.shop:80"),
            Some(addr("foo", Some("shop"), Form::ShortNamespace))
        );
        assert_eq!(
            one("http://foo.shop.svc.cluster.local:8080/api?x=1"),
            Some(addr("foo", Some("shop"), Form::ServiceDns))
        );
        assert_eq!(
            one("foo.shop.svc"),
            Some(addr("foo", Some("shop"), Form::ServiceDns))
        );
        assert_eq!(one("grpc://foo"), Some(addr("foo", None, Form::Scheme)));
        assert_eq!(
            one("redis://user:secret@foo:6379/0"),
            Some(addr("foo", None, Form::Scheme))
        );
        assert_eq!(
            one("foo.shop.svc.cluster.local."),
            Some(addr("foo", Some("shop"), Form::ServiceDns))
        );
    }

    #[test]
    fn words_are_cut_at_punctuation() {
        let found = addresses("--backend=foo:80,bar:81 \"baz:1\"");
        let names: Vec<&str> = found.iter().map(|a| a.name.as_str()).collect();
        assert_eq!(names, ["foo", "bar", "baz"]);
        assert_eq!(addresses("foo:1 foo:2").len(), 1);
    }

    #[test]
    fn a_bare_word_counts_only_alone() {
        assert_eq!(one(" foo "), Some(addr("foo", None, Form::Bare)));
        assert_eq!(one("--upstream=foo"), Some(addr("foo", None, Form::Bare)));
        assert_eq!(addresses("echo could not reach foo"), Vec::new());
        assert_eq!(
            one("wget http://foo:80 && echo foo"),
            Some(addr("foo", None, Form::Scheme))
        );
    }

    #[test]
    fn what_is_not_an_address_is_left_alone() {
        for value in [
            "8080",
            "localhost:8080",
            "127.0.0.1:80",
            "www.example.com",
            "api.example.com:443",
            "key:value",
            "foo:",
            ":8080",
            "/var/lib/data",
            "image/png",
            "Foo",
            "FRONTEND_ADDR",
            "-foo",
            "foo-",
            "ftp+x://",
            "HTTP://foo",
            "[::1]:80",
            "",
        ] {
            assert_eq!(addresses(value), Vec::new(), "{value}");
        }
    }

    #[test]
    fn only_some_forms_stand_on_their_shape() {
        assert!(!Form::Bare.is_explicit());
        assert!(!Form::ShortNamespace.is_explicit());
        assert!(Form::Port.is_explicit());
        assert!(Form::Scheme.is_explicit());
        assert!(Form::ServiceDns.is_explicit());
    }
}
