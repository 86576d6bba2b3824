//! What a workload is, told from what its manifest shows: the image, the
//! container ports and their names, and the workload's own name. A
//! database or cache (`mongo`, `weaveworksdemos/user-db` listening on
//! 27017 named `mongo`, `teastore-db` on 3306), a message queue
//! (`rabbitmq`, `kafka`), a discovery service the others find each other
//! through (`consul`, `eureka`, a `registry`), or a tracer (`jaeger`). The
//! importer writes the kind, a `recovery` line to fill in for what holds
//! data, `plane: control` for discovery, and leaves the infrastructure out
//! of the entrypoints it guesses.

use super::k8s::{Workload, WorkloadKind};

/// What a workload is, and how that was told.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Role {
    /// It holds data: a database or a cache.
    Datastore(String),
    /// A message queue or log.
    Queue(String),
    /// A discovery service (service registry).
    Discovery(String),
    /// A tracing backend.
    Tracing(String),
    /// None of these.
    Service,
}

impl Role {
    /// The `kind:` written for it, when it is one of the roles.
    #[must_use]
    pub fn kind(&self) -> Option<(&'static str, &str)> {
        match self {
            Role::Datastore(why) => Some(("datastore", why)),
            Role::Queue(why) => Some(("queue", why)),
            Role::Discovery(why) => Some(("discovery", why)),
            Role::Tracing(why) => Some(("tracing", why)),
            Role::Service => None,
        }
    }
}

/// Images of well-known databases, caches and coordination stores, by the
/// last part of the repository name.
pub const DATABASE_IMAGES: &[&str] = &[
    "cassandra",
    "clickhouse-server",
    "cockroach",
    "couchdb",
    "elasticsearch",
    "etcd",
    "influxdb",
    "keydb",
    "mariadb",
    "memcached",
    "mongo",
    "mongodb",
    "mysql",
    "neo4j",
    "opensearch",
    "percona",
    "postgis",
    "postgres",
    "postgresql",
    "redis",
    "redis-stack-server",
    "scylla",
    "timescaledb",
    "valkey",
    "zookeeper",
];

/// Words naming a database or a cache, in an image or a workload name.
const STORE_WORDS: &[(&str, &str)] = &[
    ("mysql", "MySQL"),
    ("mariadb", "MariaDB"),
    ("postgres", "PostgreSQL"),
    ("postgresql", "PostgreSQL"),
    ("mongo", "MongoDB"),
    ("mongodb", "MongoDB"),
    ("redis", "Redis"),
    ("cassandra", "Cassandra"),
    ("elasticsearch", "Elasticsearch"),
    ("memcached", "memcached"),
];

/// Words naming a queue.
const QUEUE_WORDS: &[(&str, &str)] = &[
    ("rabbitmq", "RabbitMQ"),
    ("kafka", "Kafka"),
    ("nats", "NATS"),
    ("activemq", "ActiveMQ"),
    ("pulsar", "Pulsar"),
];

/// Words naming a discovery service.
const DISCOVERY_WORDS: &[(&str, &str)] = &[
    ("consul", "Consul"),
    ("eureka", "Eureka"),
    ("nacos", "Nacos"),
    ("registry", "a service registry"),
];

/// Words naming a tracing backend.
const TRACING_WORDS: &[(&str, &str)] = &[("jaeger", "Jaeger"), ("zipkin", "Zipkin")];

/// Words that make a name a tool around the thing, not the thing
/// (`redis_exporter`, `mongo-express`, `kafka-ui`).
const TOOL_WORDS: &[&str] = &[
    "exporter", "operator", "express", "ui", "admin", "proxy", "client", "connect", "agent",
];

/// Well-known ports and what listens on them.
const PORTS: &[(u32, Kind, &str)] = &[
    (3306, Kind::Store, "MySQL/MariaDB"),
    (5432, Kind::Store, "PostgreSQL"),
    (27017, Kind::Store, "MongoDB"),
    (6379, Kind::Store, "Redis"),
    (9042, Kind::Store, "Cassandra"),
    (9200, Kind::Store, "Elasticsearch"),
    (11211, Kind::Store, "memcached"),
    (5672, Kind::Queue, "AMQP (RabbitMQ)"),
    (9092, Kind::Queue, "Kafka"),
    (8500, Kind::Discovery, "Consul"),
    (8761, Kind::Discovery, "Eureka"),
];

/// Port names and what they name.
const PORT_NAMES: &[(&str, Kind, &str)] = &[
    ("mysql", Kind::Store, "MySQL"),
    ("postgres", Kind::Store, "PostgreSQL"),
    ("postgresql", Kind::Store, "PostgreSQL"),
    ("mongo", Kind::Store, "MongoDB"),
    ("mongodb", Kind::Store, "MongoDB"),
    ("redis", Kind::Store, "Redis"),
    ("amqp", Kind::Queue, "AMQP"),
    ("rabbitmq", Kind::Queue, "RabbitMQ"),
    ("kafka", Kind::Queue, "Kafka"),
];

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Store,
    Queue,
    Discovery,
    Tracing,
}

fn role(kind: Kind, why: String) -> Role {
    match kind {
        Kind::Store => Role::Datastore(why),
        Kind::Queue => Role::Queue(why),
        Kind::Discovery => Role::Discovery(why),
        Kind::Tracing => Role::Tracing(why),
    }
}

/// The last part of an image's repository, without tag or digest:
/// `docker.io/bitnami/postgresql:15@sha256:…` is `postgresql`.
fn repository(image: &str) -> &str {
    let without_digest = image.split('@').next().unwrap_or(image);
    let last = without_digest.rsplit('/').next().unwrap_or(without_digest);
    last.split(':').next().unwrap_or(last)
}

/// Whether an image is a well-known database: `postgres:16`,
/// `docker.io/bitnami/postgresql@sha256:…`, `redis:alpine`.
#[must_use]
pub fn is_database_image(image: &str) -> bool {
    DATABASE_IMAGES.contains(&repository(image).to_ascii_lowercase().as_str())
}

/// The well-known thing a name (an image's repository, a workload's name)
/// names by one of its words, unless another word makes it a tool.
fn named(name: &str) -> Option<(Kind, &'static str)> {
    let lower = name.to_ascii_lowercase();
    let words: Vec<&str> = lower
        .split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|w| !w.is_empty())
        .collect();
    if words.iter().any(|w| TOOL_WORDS.contains(w)) {
        return None;
    }
    // `registry` alone is Docker's image registry, not a service registry.
    if words == ["registry"] {
        return None;
    }
    [
        (Kind::Store, STORE_WORDS),
        (Kind::Queue, QUEUE_WORDS),
        (Kind::Discovery, DISCOVERY_WORDS),
        (Kind::Tracing, TRACING_WORDS),
    ]
    .into_iter()
    .find_map(|(kind, list)| {
        list.iter()
            .find(|(word, _)| words.contains(word))
            .map(|&(_, what)| (kind, what))
    })
}

/// What `workload` is: by its image, its ports, its name, and a
/// StatefulSet holds data.
#[must_use]
pub fn recognise(workload: &Workload) -> Role {
    let containers = || workload.containers.iter().filter(|c| !c.init);
    let images = || containers().filter_map(|c| c.image.as_deref());
    if let Some(image) = images().find(|image| is_database_image(image)) {
        return Role::Datastore(format!("image {image}"));
    }
    for image in images() {
        if let Some((kind, what)) = named(repository(image)) {
            return role(kind, format!("image {image}: {what}"));
        }
    }
    for (number, name) in containers().flat_map(|c| c.ports.iter()) {
        if let Some(&(port, kind, what)) = number.and_then(|n| PORTS.iter().find(|p| p.0 == n)) {
            return role(kind, format!("port {port}: {what}"));
        }
        let lower = name.as_deref().map(str::to_ascii_lowercase);
        if let Some(&(port_name, kind, what)) =
            lower.and_then(|n| PORT_NAMES.iter().find(|p| p.0 == n))
        {
            return role(kind, format!("port named {port_name}: {what}"));
        }
    }
    if let Some((kind, what)) = named(&workload.name) {
        return role(kind, format!("named like {what}"));
    }
    if workload.kind == WorkloadKind::StatefulSet {
        return Role::Datastore("StatefulSet".to_owned());
    }
    Role::Service
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_read_word_by_word() {
        assert_eq!(named("mongodb-34-centos7").map(|n| n.1), Some("MongoDB"));
        assert_eq!(named("rabbitmq").map(|n| n.1), Some("RabbitMQ"));
        assert_eq!(
            named("teastore-registry").map(|n| n.1),
            Some("a service registry")
        );
        assert_eq!(named("registry"), None);
        assert_eq!(named("mongo-express"), None);
        assert_eq!(named("redis_exporter"), None);
        assert_eq!(named("jaeger").map(|n| n.0), Some(Kind::Tracing));
        assert_eq!(named("frontend"), None);
        // A word must be whole: `mongoose` is not mongo.
        assert_eq!(named("mongoose-app"), None);
    }

    #[test]
    fn database_images_are_known_by_repository() {
        assert!(is_database_image("postgres:16"));
        assert!(is_database_image(
            "docker.io/bitnami/postgresql:15@sha256:abc"
        ));
        assert!(is_database_image("redis:alpine"));
        assert!(is_database_image("mongo"));
        assert!(is_database_image("registry:5000/team/mysql:8"));
        assert!(!is_database_image("oliver006/redis_exporter:v1"));
        assert!(!is_database_image("prometheuscommunity/postgres-exporter"));
        assert!(!is_database_image("example/frontend:v1"));
    }
}
