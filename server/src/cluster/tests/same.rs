//! Snapshot equality as a viewer sees it: every field the encoders read.

use panecast_term::{PublishedSet, Snapshot};

fn same_set<T: PartialEq + std::fmt::Debug>(a: &PublishedSet<T>, b: &PublishedSet<T>, what: &str) {
    assert_eq!(a.len(), b.len(), "{what} length");
    for id in 0..a.len() {
        assert_eq!(a.get(id), b.get(id), "{what} {id}");
        assert_eq!(a.stamp(id), b.stamp(id), "{what} {id} stamp");
    }
}

/// Asserts `mirror` shows exactly `owner`.
pub(super) fn assert_same(mirror: &Snapshot, owner: &Snapshot) {
    assert_eq!((mirror.cols, mirror.rows), (owner.cols, owner.rows), "size");
    assert_eq!(mirror.cursor, owner.cursor, "cursor");
    assert_eq!(mirror.alternate, owner.alternate, "alternate");
    assert_eq!(mirror.title, owner.title, "title");
    assert_eq!(mirror.modes, owner.modes, "modes");
    assert_eq!(mirror.lines.len(), owner.lines.len(), "rows");
    for (i, (m, o)) in mirror.lines.iter().zip(&owner.lines).enumerate() {
        assert_eq!(**m, **o, "row {i}");
    }
    same_set(&mirror.styles, &owner.styles, "style");
    same_set(&mirror.links, &owner.links, "link");
    assert_eq!(mirror.style_epoch, owner.style_epoch, "style epoch");
    assert_eq!(mirror.generation, owner.generation, "generation");
    assert_eq!(mirror.scroll_count, owner.scroll_count, "scroll count");
    assert_eq!(mirror.pushes.count(), owner.pushes.count(), "pushes");
    let rows = owner.rows as usize;
    for from in owner.pushes.count().saturating_sub(rows as u64 + 1)..=owner.pushes.count() {
        for since in [0, owner.generation / 2, owner.generation, u64::MAX - 1] {
            assert_eq!(
                mirror.pushes.kept(from, since, rows),
                owner.pushes.kept(from, since, rows),
                "pushes kept from {from} since {since}"
            );
        }
    }
    assert_eq!(mirror.images.len(), owner.images.len(), "images");
    for image in owner.images.iter() {
        let held = mirror
            .image(image.hash())
            .expect("the mirror holds the image");
        assert_eq!(held.rgba(), image.rgba(), "image {}", image.hash());
    }
    assert_eq!(mirror.bells, owner.bells, "bells");
    assert_eq!(mirror.scrollback_len, owner.scrollback_len, "scrollback");
}
