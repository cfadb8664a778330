//! The cluster's membership and session registry in NATS JetStream KV.
//!
//! - `panecast_nodes`: one key per live node, refreshed every third of the
//!   TTL; the bucket's `max_age` is the TTL, so a node that stops
//!   refreshing (killed, paused, cut off) leaves within it.
//! - `panecast_sessions`: `id.<id>` -> a [`SessionRecord`] written by the
//!   owner when a session is created, resized, exits and is deleted, and
//!   `name.<hex of name>` -> the id, created only when absent, which keeps
//!   names unique across the cluster. The live node with the lowest name
//!   removes, at each of its heartbeats, the records and names of nodes
//!   that are gone: their liveness key expired (a TTL after their last
//!   refresh) and it has seen them gone for one more TTL since, so at
//!   least 2 x TTL after their last refresh. A node starved or paused
//!   for a little longer than the TTL leaves the list for a while but
//!   keeps its records, and is back whole at its next refresh.
//!
//! A node that comes back (paused, starved, cut off) registers its
//! sessions again: at each heartbeat, when its own liveness key had
//! expired or a record it wrote is no longer in the bucket (the reaper
//! removed it), every local session writes its record again and claims
//! its name again ([`Registry::rejoin`]). A name another node's session
//! took meanwhile stays with that session, since it was given out while
//! this one was gone: the local session keeps running, a warning names
//! both, and its record is written without the name; this node's list
//! shows it without the name too ([`Registry::lost_name`]), so no list
//! holds two sessions of one name. The lost name does not come back.
//!
//! The session layer still enforces every limit; this is bookkeeping.

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use async_nats::jetstream::kv::{CreateErrorKind, Store};
use async_nats::jetstream::stream;
use futures_util::TryStreamExt;
use serde::{Deserialize, Serialize};
use tokio::sync::watch;

use super::bus::Bus;
use super::cache::{Cache, Follower};
use super::record::{record_context, SessionRecord, SESSIONS_BUCKET};
use super::seal::{BusKey, BusKeyError, Kind, Seal, SealError};
use crate::cluster_config::{ClusterConfig, ClusterConfigError};
use crate::secret_file::SecretFileError;

/// The bucket of live nodes.
pub const NODES_BUCKET: &str = "panecast_nodes";

/// How long connecting to NATS may take before the node gives up.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(5);

/// How long a list waits for this node's copy of the sessions bucket to
/// catch up with the bucket before it answers from the copy as it is.
const LIST_WAIT: Duration = Duration::from_secs(2);

/// A live node's entry in `panecast_nodes`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct NodeRecord {
    /// The node's name.
    pub node: String,
}

/// What went wrong talking to the registry.
#[derive(Debug, thiserror::Error)]
pub enum RegistryError {
    /// NATS could not be reached or refused the connection.
    #[error("cannot connect to NATS at {url}: {source}")]
    Connect {
        /// The URL given with `--cluster`.
        url: String,
        /// Why.
        source: async_nats::ConnectError,
    },
    /// A credentials file could not be read.
    #[error("cannot read the NATS credentials file {path}: {source}")]
    Credentials {
        /// The file.
        path: String,
        /// Why.
        source: std::io::Error,
    },
    /// The configuration cannot join a cluster safely: no key, no
    /// credentials, a secret others may read.
    #[error(transparent)]
    Config(#[from] ClusterConfigError),
    /// `[cluster] key_file` holds no key.
    #[error(transparent)]
    Key(#[from] BusKeyError),
    /// This node cannot seal (its name).
    #[error(transparent)]
    Seal(#[from] SealError),
    /// A file holding a secret (credentials, a TLS key) is not private.
    #[error(transparent)]
    SecretFile(#[from] SecretFileError),
    /// A bucket could not be opened or made (JetStream off, no rights).
    #[error(
        "cannot open the JetStream KV bucket {bucket} at {url} (is JetStream enabled?): {source}"
    )]
    Bucket {
        /// The bucket.
        bucket: &'static str,
        /// The NATS URL.
        url: String,
        /// Why.
        source: async_nats::Error,
    },
    /// The name is another session's, on some node.
    #[error("the name {0:?} is taken in the cluster")]
    NameTaken(String),
    /// A read, write or listing failed.
    #[error("registry {op} failed: {source}")]
    Kv {
        /// What was being done.
        op: &'static str,
        /// Why.
        source: async_nats::Error,
    },
    /// A record in the bucket is not one this version reads.
    #[error("registry record {key} is malformed: {source}")]
    Malformed {
        /// Its key.
        key: String,
        /// Why.
        source: serde_json::Error,
    },
    /// A record in the bucket that no node sealed (or sealed for another
    /// key): refused.
    #[error("registry record {key} refused: {refusal}")]
    Refused {
        /// Its key.
        key: String,
        /// Why.
        refusal: super::seal::Refusal,
    },
}

/// The key of a session's record.
fn session_key(id: &str) -> String {
    format!("id.{id}")
}

/// The key of a name: hex, since names may hold bytes KV keys may not.
fn name_key(name: &str) -> String {
    let mut key = String::with_capacity(5 + 2 * name.len());
    key.push_str("name.");
    for byte in name.bytes() {
        key.push_str(&format!("{byte:02x}"));
    }
    key
}

/// The stream behind KV bucket `bucket`, as the client's own
/// `create_key_value` makes it. Made here because that call first reads
/// the account's JetStream info, whose shape changed in NATS 2.10: the
/// client cannot read a 2.9 server's (Debian bookworm ships 2.9.10).
pub(super) fn kv_stream(bucket: &str, max_age: Duration) -> stream::Config {
    stream::Config {
        name: format!("KV_{bucket}"),
        subjects: vec![format!("$KV.{bucket}.>")],
        max_messages_per_subject: 1,
        max_age,
        // JetStream refuses a window of duplicates longer than max_age.
        duplicate_window: if max_age.is_zero() {
            Duration::from_secs(120)
        } else {
            max_age.min(Duration::from_secs(120))
        },
        allow_rollup: true,
        deny_delete: true,
        allow_direct: true,
        discard: stream::DiscardPolicy::New,
        ..Default::default()
    }
}

/// The stream `config` names, made when there is none. Two nodes that
/// start together may both find none and both make it: the second's
/// create fails (the subjects overlap), and the stream is then there.
pub(super) async fn open_stream(
    jetstream: &async_nats::jetstream::Context,
    config: stream::Config,
) -> Result<stream::Stream, async_nats::Error> {
    match jetstream.get_or_create_stream(config.clone()).await {
        Ok(stream) => Ok(stream),
        Err(first) => {
            tokio::time::sleep(Duration::from_millis(100)).await;
            jetstream
                .get_stream(&config.name)
                .await
                .map_err(|_| first.into())
        }
    }
}

/// Boxes a client error for [`RegistryError::Kv`].
pub(super) fn kv_error(
    op: &'static str,
) -> impl FnOnce(Box<dyn std::error::Error + Send + Sync>) -> RegistryError {
    move |source| RegistryError::Kv { op, source }
}

/// One node's handle on the cluster registry.
#[derive(Debug, Clone)]
pub struct Registry {
    node: String,
    /// The NATS URL it connected to.
    url: String,
    /// The connection and this node's seal, shared with the session
    /// layer's screens and requests.
    bus: Bus,
    /// The cluster's key, for what else the nodes must share.
    key: BusKey,
    ttl: Duration,
    nodes: Store,
    /// The stream behind `nodes`, read by subject (see [`Self::live_nodes`]).
    nodes_stream: stream::Stream,
    sessions: Store,
    /// The stream behind `sessions`: its last sequence tells how far the
    /// cache must be to answer a list.
    sessions_stream: stream::Stream,
    /// This node's copy of the sessions bucket.
    cache: Arc<Cache>,
    /// Keeps `cache` current while any clone of the registry lives.
    _follower: Arc<Follower>,
    /// What this node keeps about its own sessions and the nodes it reaps.
    local: Arc<Local>,
}

/// A node's own bookkeeping, shared by the registry's clones.
#[derive(Debug)]
struct Local {
    /// The ids of the records this node wrote and has not removed.
    written: Mutex<HashSet<String>>,
    /// The ids of this node's sessions whose name another node's session
    /// took while this node was gone.
    unnamed: Mutex<HashSet<String>>,
    /// Each gone node whose records are still there, and when the reaper
    /// first saw it gone.
    gone_since: Mutex<HashMap<String, Instant>>,
    /// Counts the times this node came back: each session re-registers
    /// when it moves.
    rejoins: watch::Sender<u64>,
}

impl Registry {
    /// Connects to NATS at `url` as node `node`, opens (or makes) both
    /// buckets and announces the node. Fails at once, naming the URL,
    /// when NATS cannot be reached, and before trying when the
    /// configuration has no bus key or no credentials (see
    /// [`ClusterConfig::check`]).
    pub async fn connect(
        url: &str,
        node: &str,
        config: &ClusterConfig,
    ) -> Result<Registry, RegistryError> {
        config.check(url)?;
        let key_file = config
            .key_file
            .as_deref()
            .ok_or(ClusterConfigError::NoKeyFile)?;
        let key = BusKey::load(key_file)?;
        let seal = Seal::new(&key, node)?;
        let nkey_seed = config.nkey_seed()?;
        for (path, what) in [
            (&config.creds_file, "cluster.creds_file"),
            (&config.tls_key, "cluster.tls_key"),
        ] {
            if let Some(path) = path {
                crate::secret_file::check_private(path, what)?;
            }
        }
        let mut options = match &config.creds_file {
            Some(path) => async_nats::ConnectOptions::with_credentials_file(path)
                .await
                .map_err(|source| RegistryError::Credentials {
                    path: path.display().to_string(),
                    source,
                })?,
            None => async_nats::ConnectOptions::new(),
        };
        if let Some(seed) = nkey_seed {
            options = options.nkey(seed);
        }
        let password = config.password()?;
        if let (Some(user), Some(password)) = (&config.user, password) {
            options = options.user_and_password(user.clone(), password);
        }
        if let Some(ca) = &config.tls_ca {
            options = options.add_root_certificates(ca.clone()).require_tls(true);
        }
        if let (Some(cert), Some(key)) = (&config.tls_cert, &config.tls_key) {
            options = options.add_client_certificate(cert.clone(), key.clone());
        }
        if config.require_tls {
            options = options.require_tls(true);
        }
        let client = options
            .name(format!("panecast {node}"))
            .connection_timeout(CONNECT_TIMEOUT)
            .connect(url)
            .await
            .map_err(|source| RegistryError::Connect {
                url: url.to_owned(),
                source,
            })?;
        let jetstream = async_nats::jetstream::new(client.clone());
        let ttl = config.node_ttl();
        let bucket = |bucket: &'static str, max_age: Duration| {
            let jetstream = jetstream.clone();
            async move {
                let failed = |source| RegistryError::Bucket {
                    bucket,
                    url: url.to_owned(),
                    source,
                };
                let stream = open_stream(&jetstream, kv_stream(bucket, max_age))
                    .await
                    .map_err(failed)?;
                let store = jetstream
                    .get_key_value(bucket)
                    .await
                    .map_err(|e| failed(e.into()))?;
                Ok::<_, RegistryError>((stream, store))
            }
        };
        let (nodes_stream, nodes) = bucket(NODES_BUCKET, ttl).await?;
        let (sessions_stream, sessions) = bucket(SESSIONS_BUCKET, Duration::ZERO).await?;
        let bus = Bus::new(client, seal);
        let cache = Arc::new(Cache::new(bus.clone()));
        let follower = Arc::new(Follower(Arc::clone(&cache).follow(sessions.clone())));
        let registry = Registry {
            node: node.to_owned(),
            url: url.to_owned(),
            bus,
            key,
            ttl,
            nodes,
            nodes_stream,
            sessions,
            sessions_stream,
            cache,
            _follower: follower,
            local: Arc::new(Local {
                written: Mutex::new(HashSet::new()),
                unnamed: Mutex::new(HashSet::new()),
                gone_since: Mutex::new(HashMap::new()),
                rejoins: watch::channel(0).0,
            }),
        };
        registry.heartbeat().await?;
        Ok(registry)
    }

    /// This node's name.
    pub fn node(&self) -> &str {
        &self.node
    }

    /// The NATS URL this node connected to.
    pub fn url(&self) -> &str {
        &self.url
    }

    /// The NATS connection.
    pub fn client(&self) -> &async_nats::Client {
        self.bus.client()
    }

    /// The NATS connection with this node's seal.
    pub fn bus(&self) -> &Bus {
        &self.bus
    }

    /// A key for `purpose` that every node of the cluster derives alike
    /// from the bus key, and nothing else can.
    pub fn bus_key_for(&self, purpose: &str) -> [u8; 32] {
        self.key.derive(purpose)
    }

    /// `value`, sealed as a record of `bucket` under `key`.
    pub(super) fn seal_record(&self, bucket: &str, key: &str, value: &[u8]) -> Vec<u8> {
        self.bus
            .seal()
            .seal(Kind::Record, &record_context(bucket, key), value)
    }

    /// The value of a record of `bucket` under `key`, when a node sealed
    /// it there.
    pub(super) fn open_record<'a>(
        &self,
        bucket: &str,
        key: &str,
        sealed: &'a [u8],
    ) -> Result<&'a [u8], RegistryError> {
        self.bus
            .open(Kind::Record, &record_context(bucket, key), sealed)
            .map(|opened| opened.payload)
            .map_err(|refusal| RegistryError::Refused {
                key: key.to_owned(),
                refusal,
            })
    }

    /// The record of another node's session with id `id_or_name`, or else
    /// with that name, from this node's copy of the bucket (no request).
    pub fn remote_session(&self, id_or_name: &str) -> Option<SessionRecord> {
        self.cache
            .find(id_or_name)
            .filter(|record| record.node != self.node)
    }

    /// As [`Self::remote_session`], but on a miss the copy first catches
    /// up with every write made before the call (one request), so that a
    /// session just created on another node is found here at once.
    pub async fn find_remote_session(
        &self,
        id_or_name: &str,
    ) -> Result<Option<SessionRecord>, RegistryError> {
        if let Some(record) = self.remote_session(id_or_name) {
            return Ok(Some(record));
        }
        self.catch_up().await?;
        Ok(self.remote_session(id_or_name))
    }

    /// Of the `live` nodes, the one with the most room for a session
    /// when each may run `max` (the fewest running sessions in this
    /// node's copy of the registry; this node first of equals, then by
    /// name); `None` when every one runs `max`.
    pub fn roomiest(&self, live: &[String], max: usize) -> Option<String> {
        let mut running: HashMap<&str, usize> =
            live.iter().map(|node| (node.as_str(), 0)).collect();
        for record in self.cache.records(|record| record.state == "running") {
            if let Some(count) = running.get_mut(record.node.as_str()) {
                *count += 1;
            }
        }
        running
            .into_iter()
            .filter(|(_, count)| *count < max)
            .min_by_key(|(node, count)| (*count, *node != self.node, *node))
            .map(|(node, _)| node.to_owned())
    }

    /// Refreshes this node's liveness key; when the key had expired or a
    /// record this node wrote is gone from the bucket, tells every local
    /// session to register again ([`Self::rejoins`]).
    pub async fn heartbeat(&self) -> Result<(), RegistryError> {
        let was_live = self
            .nodes
            .get(&self.node)
            .await
            .map_err(|e| kv_error("heartbeat")(e.into()))?
            .is_some();
        let record = NodeRecord {
            node: self.node.clone(),
        };
        // A struct of one string always serializes.
        let value = serde_json::to_vec(&record).expect("a NodeRecord serializes");
        let value = self.seal_record(NODES_BUCKET, &self.node, &value);
        self.nodes
            .put(&self.node, value.into())
            .await
            .map_err(|e| kv_error("heartbeat")(e.into()))?;
        if !was_live || self.lost_records().await? {
            tracing::info!(node = %self.node, "this node was gone: registering its sessions again");
            self.local.rejoins.send_modify(|count| *count += 1);
        }
        Ok(())
    }

    /// Waits (at most [`LIST_WAIT`]) until this node's copy holds every
    /// write made to the sessions bucket before the call (one request for
    /// its last sequence); false when it does not by then.
    async fn catch_up(&self) -> Result<bool, RegistryError> {
        let last = self
            .sessions_stream
            .get_info()
            .await
            .map_err(|e| kv_error("reading the sessions bucket")(e.into()))?
            .state
            .last_sequence;
        Ok(self.cache.caught_up(last, LIST_WAIT).await)
    }

    /// Whether a record this node wrote is no longer in the bucket, once
    /// the copy holds every write made before the call.
    async fn lost_records(&self) -> Result<bool, RegistryError> {
        let written: Vec<String> = lock(&self.local.written).iter().cloned().collect();
        if written.is_empty() {
            return Ok(false);
        }
        if !self.catch_up().await? {
            // Not known yet: the next heartbeat looks again.
            return Ok(false);
        }
        // A record written or removed since the list was taken is not lost.
        let still = lock(&self.local.written);
        Ok(written
            .iter()
            .any(|id| still.contains(id) && !self.cache.has(id)))
    }

    /// Moves each time this node comes back (see [`Self::heartbeat`]):
    /// every local session then calls [`Self::rejoin`].
    pub fn rejoins(&self) -> watch::Receiver<u64> {
        self.local.rejoins.subscribe()
    }

    /// Registers a session of this node again after the node came back:
    /// claims its name again and writes its record. When another node's
    /// session took the name meanwhile, warns naming both, drops the name
    /// from `record` and writes it without it.
    pub async fn rejoin(&self, record: &mut SessionRecord) -> Result<(), RegistryError> {
        if let Some(name) = record.name.clone() {
            match self.claim_name(&name, &record.id, &[]).await {
                Ok(()) => {}
                Err(RegistryError::NameTaken(_)) => {
                    let holder = self.name_holder(&name).await?;
                    tracing::warn!(
                        %name,
                        id = %record.id,
                        holder = %holder.as_deref().unwrap_or("-"),
                        "the name was taken by another node's session while this node was gone: this session keeps running without it"
                    );
                    record.name = None;
                    lock(&self.local.unnamed).insert(record.id.clone());
                }
                Err(e) => return Err(e),
            }
        }
        self.update(record).await
    }

    /// Whether session `id` of this node lost its name to another node's
    /// session while this node was gone: it is listed without it.
    pub fn lost_name(&self, id: &str) -> bool {
        lock(&self.local.unnamed).contains(id)
    }

    /// The id of the session that holds `name`, if any.
    async fn name_holder(&self, name: &str) -> Result<Option<String>, RegistryError> {
        let holder = self
            .sessions
            .get(name_key(name))
            .await
            .map_err(|e| kv_error("reading a name")(e.into()))?;
        holder.map(|sealed| self.name_id(name, &sealed)).transpose()
    }

    /// The session id a name's record holds.
    fn name_id(&self, name: &str, sealed: &[u8]) -> Result<String, RegistryError> {
        self.open_record(SESSIONS_BUCKET, &name_key(name), sealed)
            .map(|id| String::from_utf8_lossy(id).into_owned())
    }

    /// Refreshes this node's key every third of the TTL until the
    /// returned task is aborted (or the process ends), and each time, when
    /// this is the live node with the lowest name, removes the records of
    /// nodes that are gone ([`Self::reap_dead_nodes`]).
    pub fn spawn_heartbeat(self: Arc<Self>) -> tokio::task::JoinHandle<()> {
        tokio::spawn(async move {
            let mut ticks = tokio::time::interval(self.ttl / 3);
            ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
            loop {
                ticks.tick().await;
                if let Err(e) = self.heartbeat().await {
                    tracing::warn!(error = %e, "cannot refresh this node's liveness");
                    continue;
                }
                if let Err(e) = self.reap_dead_nodes().await {
                    tracing::warn!(error = %e, "cannot remove the sessions of nodes that are gone");
                }
            }
        })
    }

    /// When this is the live node with the lowest name: unregisters every
    /// session (record and name) of a node that is not live (its liveness
    /// key expired a TTL after its last refresh) and that this node has
    /// seen gone for one more TTL, so that a node starved for a little
    /// longer than the TTL comes back with its records. Returns how many
    /// it removed (none on the other nodes).
    pub async fn reap_dead_nodes(&self) -> Result<usize, RegistryError> {
        let live = self.live_nodes().await?;
        if live.first() != Some(&self.node) {
            lock(&self.local.gone_since).clear();
            return Ok(0);
        }
        let gone = self.cache.records(|record| !live.contains(&record.node));
        let now = Instant::now();
        let dead: Vec<SessionRecord> = {
            let mut since = lock(&self.local.gone_since);
            since.retain(|node, _| gone.iter().any(|record| &record.node == node));
            for record in &gone {
                since.entry(record.node.clone()).or_insert(now);
            }
            gone.into_iter()
                .filter(|record| {
                    since
                        .get(&record.node)
                        .is_some_and(|first| now.duration_since(*first) >= self.ttl)
                })
                .collect()
        };
        for record in &dead {
            tracing::info!(id = %record.id, node = %record.node, "removing a session of a node that is gone");
            self.unregister(record).await?;
        }
        Ok(dead.len())
    }

    /// Removes this node's liveness key at once (a clean shutdown): the
    /// stream's messages of the key, leaving no purge marker behind.
    pub async fn leave(&self) -> Result<(), RegistryError> {
        self.nodes_stream
            .purge()
            .filter(format!("$KV.{NODES_BUCKET}.{}", self.node))
            .await
            .map_err(|e| kv_error("leave")(e.into()))?;
        Ok(())
    }

    /// The names of the live nodes: the subjects the nodes stream holds a
    /// message of. Read from the stream's info (one request), not with
    /// the KV's `keys()`: its consumer waits forever for a message that
    /// expires (max_age) between its start and its delivery.
    pub async fn live_nodes(&self) -> Result<Vec<String>, RegistryError> {
        let prefix = format!("$KV.{NODES_BUCKET}.");
        let subjects = self
            .nodes_stream
            .info_with_subjects(format!("{prefix}>"))
            .await
            .map_err(|e| kv_error("listing nodes")(e.into()))?;
        let subjects: Vec<(String, usize)> = subjects
            .try_collect()
            .await
            .map_err(|e| kv_error("listing nodes")(e.into()))?;
        let mut nodes: Vec<String> = subjects
            .into_iter()
            .filter(|(_, count)| *count > 0)
            .filter_map(|(subject, _)| subject.strip_prefix(&prefix).map(str::to_owned))
            .collect();
        nodes.sort();
        Ok(nodes)
    }

    /// Registers a session this node owns: claims its name (if any) first,
    /// failing with [`RegistryError::NameTaken`] when another session
    /// holds it, then writes the record.
    pub async fn register(&self, record: &SessionRecord) -> Result<(), RegistryError> {
        if let Some(name) = &record.name {
            self.claim_name(name, &record.id, &[]).await?;
        }
        self.update(record).await
    }

    /// Claims `name` for session `id`: only when no session holds it, or
    /// one of `replaceable` does (this node's exited sessions, ended to
    /// make room for the new one), or a session of a node that is gone.
    /// [`RegistryError::NameTaken`] otherwise.
    pub async fn claim_name(
        &self,
        name: &str,
        id: &str,
        replaceable: &[String],
    ) -> Result<(), RegistryError> {
        let key = name_key(name);
        let sealed_id = self.seal_record(SESSIONS_BUCKET, &key, id.as_bytes());
        let taken = match self.sessions.create(&key, sealed_id.clone().into()).await {
            Ok(_) => return Ok(()),
            Err(e) if e.kind() == CreateErrorKind::AlreadyExists => {
                RegistryError::NameTaken(name.to_owned())
            }
            Err(e) => return Err(kv_error("claiming a name")(e.into())),
        };
        let holder = self
            .sessions
            .entry(key.clone())
            .await
            .map_err(|e| kv_error("reading a name")(e.into()))?;
        let Some(entry) = holder else {
            return Err(taken);
        };
        // A record no node sealed holds no name: taken over as a gone one's.
        let holder_id = self.name_id(name, &entry.value).unwrap_or_default();
        if holder_id == id {
            // Already this session's (registered again).
            return Ok(());
        }
        let gone = match self.get(&holder_id).await {
            // Its node died without unregistering it.
            Ok(Some(record)) => !self.live_nodes().await?.contains(&record.node),
            // Unregistered but for the name (its node died in between), or
            // a record no node sealed.
            Ok(None) | Err(RegistryError::Refused { .. }) => true,
            Err(e) => return Err(e),
        };
        match entry {
            entry if gone || replaceable.contains(&holder_id) => {
                // Fails when another node took the name meanwhile.
                self.sessions
                    .update(&key, sealed_id.into(), entry.revision)
                    .await
                    .map_err(|_| taken)?;
                Ok(())
            }
            _ => Err(taken),
        }
    }

    /// Frees `name` if session `id` still holds it.
    pub async fn free_name(&self, name: &str, id: &str) -> Result<(), RegistryError> {
        let key = name_key(name);
        let holder = self
            .sessions
            .entry(key.clone())
            .await
            .map_err(|e| kv_error("reading a name")(e.into()))?;
        let holds = |entry: &async_nats::jetstream::kv::Entry| {
            self.name_id(name, &entry.value)
                .is_ok_and(|holder| holder == id)
        };
        if let Some(entry) = holder.filter(holds) {
            // A failure means another session claimed it since: keep it.
            let _ = self
                .sessions
                .purge_expect_revision(&key, Some(entry.revision))
                .await;
        }
        Ok(())
    }

    /// Writes a session's record again (resized, exited).
    pub async fn update(&self, record: &SessionRecord) -> Result<(), RegistryError> {
        // Strings, numbers and options always serialize.
        let value = serde_json::to_vec(record).expect("a SessionRecord serializes");
        let key = session_key(&record.id);
        let value = self.seal_record(SESSIONS_BUCKET, &key, &value);
        self.sessions
            .put(key, value.into())
            .await
            .map_err(|e| kv_error("writing a session")(e.into()))?;
        if record.node == self.node {
            lock(&self.local.written).insert(record.id.clone());
        }
        Ok(())
    }

    /// Removes a session's record and frees its name (when it still
    /// holds it).
    pub async fn unregister(&self, record: &SessionRecord) -> Result<(), RegistryError> {
        lock(&self.local.written).remove(&record.id);
        lock(&self.local.unnamed).remove(&record.id);
        self.sessions
            .purge(session_key(&record.id))
            .await
            .map_err(|e| kv_error("removing a session")(e.into()))?;
        if let Some(name) = &record.name {
            self.free_name(name, &record.id).await?;
        }
        Ok(())
    }

    /// The record of session `id`, if any node registered it.
    pub async fn get(&self, id: &str) -> Result<Option<SessionRecord>, RegistryError> {
        let key = session_key(id);
        let value = self
            .sessions
            .get(key.clone())
            .await
            .map_err(|e| kv_error("reading a session")(e.into()))?;
        value
            .map(|sealed| {
                let value = self.open_record(SESSIONS_BUCKET, &key, &sealed)?;
                serde_json::from_slice(value).map_err(|source| RegistryError::Malformed {
                    key: key.clone(),
                    source,
                })
            })
            .transpose()
    }

    /// The node that owns session `id`, if any.
    pub async fn owner(&self, id: &str) -> Result<Option<String>, RegistryError> {
        Ok(self.get(id).await?.map(|record| record.node))
    }

    /// Every session of every live node, by id (a dead node's sessions
    /// leave the list with the node), from this node's copy of the
    /// bucket once it holds every write made before the call: two
    /// requests (the bucket's last sequence, the live nodes) however many
    /// sessions there are.
    pub async fn list(&self) -> Result<Vec<SessionRecord>, RegistryError> {
        let (info, live) = tokio::join!(self.sessions_stream.get_info(), self.live_nodes());
        let last = info
            .map_err(|e| kv_error("listing sessions")(e.into()))?
            .state
            .last_sequence;
        let live = live?;
        if !self.cache.caught_up(last, LIST_WAIT).await {
            tracing::warn!(
                sequence = last,
                "the copy of the sessions bucket is behind: listing it as it is"
            );
        }
        Ok(self.cache.records(|record| live.contains(&record.node)))
    }
}

/// Locks `mutex`, through a panic of another holder (the sets stay
/// whole: each change is one insert or remove).
fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_become_valid_keys() {
        assert_eq!(name_key("ab"), "name.6162");
        assert_eq!(name_key("é x"), "name.c3a92078");
        assert_eq!(session_key("s1"), "id.s1");
    }
}
