//! Unguessable identifiers and keys: session ids, generated tokens, the
//! keys the server makes for itself.

/// 128 random bits from the operating system, as 32 lowercase hex digits.
pub fn hex128() -> Result<String, getrandom::Error> {
    let mut bytes = [0u8; 16];
    getrandom::fill(&mut bytes)?;
    Ok(bytes.iter().map(|b| format!("{b:02x}")).collect())
}

/// 256 random bits from the operating system, for keys.
pub fn key256() -> Result<[u8; 32], getrandom::Error> {
    let mut bytes = [0u8; 32];
    getrandom::fill(&mut bytes)?;
    Ok(bytes)
}

/// 64 random bits from the operating system, for ids that tell one run of
/// something from another (not secrets).
pub fn u64() -> Result<u64, getrandom::Error> {
    let mut bytes = [0u8; 8];
    getrandom::fill(&mut bytes)?;
    Ok(u64::from_le_bytes(bytes))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn is_32_hex_digits_and_differs() {
        let a = hex128().expect("os randomness");
        let b = hex128().expect("os randomness");
        assert_eq!(a.len(), 32);
        assert!(a.bytes().all(|c| c.is_ascii_hexdigit()));
        assert_ne!(a, b);
    }
}
