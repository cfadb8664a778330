//! Replication of a session's published screen from its owner node to
//! mirrors on other nodes, as pure code: no I/O, no async (the NATS
//! transport comes next and only moves the bytes).
//!
//! The owner's [`Publisher`] turns each snapshot the session's actor
//! publishes into a [`Delta`] from the one before: the rows that are not
//! the previous snapshot's (rows that only moved, as in a scroll, are sent
//! as a reference to where they were), the style and link table chunks
//! copied again since, the title and the recent pushes when they changed,
//! and the few scalars (size, cursor, modes, generations, counts). Each
//! delta has the next of consecutive revisions and names its base, the
//! revision before. On demand the publisher also writes the whole current
//! snapshot as [`Chunk`]s, each message under a byte limit (NATS's
//! `max_payload`).
//!
//! A [`Mirror`] applies chunk sets and deltas and yields snapshots equal
//! to the owner's at the same revision, field for field. It never guesses:
//! a delta whose base is not the revision it holds (a missed, reordered or
//! foreign revision), a chunk set mixed from two snapshots, or a message
//! that does not fit its base is reported as [`Outcome::Resync`], and the
//! mirror keeps the last good screen until a new chunk set arrives.
//! Duplicates of applied revisions are ignored.
//!
//! Messages are CBOR ([`Message::encode`], [`Message::decode`]) through
//! serde, as the terminal's saved state is: rows, cells and the published
//! tables already serialize compactly that way. Decoding refuses what does
//! not fit, with an error, and never allocates more than the input asks for
//! a bounded screen.
//!
//! Every message between nodes and every record in the buckets is sealed
//! with the cluster's key ([`Seal`], through the [`Bus`]): a process that
//! reaches NATS without the key can neither forge nor change them.
//!
//! [`Registry`] keeps the cluster's membership (node liveness with a TTL)
//! and its sessions (owner, name, profile, size, state) in JetStream KV;
//! it runs only with `serve --cluster`. Each node lists sessions from its
//! own copy of the sessions bucket, kept current by watching it.

mod body;
mod bus;
mod cache;
mod links;
mod message;
mod mirror;
mod publisher;
mod record;
mod registry;
mod remote;
mod seal;
mod sessions;
mod squeeze;

pub use crate::cluster_config::{ClusterConfig, ClusterConfigError, DEFAULT_NODE_TTL};
pub use bus::{Bus, RequestFailure};
pub use links::LINKS_BUCKET;
pub use message::{Bytes, Chunk, DecodeError, Delta, EndCause, Mark, Message, SessionState};
pub use mirror::{Gap, Mirror, Outcome};
pub use publisher::{LimitTooSmall, Publisher};
pub use record::{SessionRecord, SESSIONS_BUCKET};
pub use registry::{NodeRecord, Registry, RegistryError, NODES_BUCKET};
pub use seal::{
    BusKey, BusKeyError, KeyTooShort, Kind, Opened, Refusal, Seal, SealError, MAX_SKEW,
};

#[cfg(test)]
mod tests;
