//! `--user NAME | UID[:GID]`, looked up in /etc/passwd (the container's own).

use crate::cli::CliError;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct User {
    pub uid: u32,
    pub gid: u32,
    pub name: Option<String>,
    pub home: Option<String>,
}

/// One /etc/passwd line: name, uid, gid, home.
fn entry(line: &str) -> Option<(String, u32, u32, String)> {
    let f: Vec<&str> = line.split(':').collect();
    if f.len() < 7 {
        return None;
    }
    Some((
        f[0].to_string(),
        f[2].parse().ok()?,
        f[3].parse().ok()?,
        f[5].to_string(),
    ))
}

pub fn parse(s: &str) -> Result<User, CliError> {
    let passwd = std::fs::read_to_string("/etc/passwd").unwrap_or_default();
    parse_with(s, &passwd)
}

fn parse_with(s: &str, passwd: &str) -> Result<User, CliError> {
    let entries: Vec<_> = passwd.lines().filter_map(entry).collect();
    let (who, group) = match s.split_once(':') {
        Some((u, g)) => (u, Some(g)),
        None => (s, None),
    };
    let found =
        match who.parse::<u32>() {
            Ok(uid) => entries.iter().find(|e| e.1 == uid),
            Err(_) => Some(entries.iter().find(|e| e.0 == who).ok_or_else(|| {
                CliError::Msg(format!("--user {s}: no user {who:?} in /etc/passwd"))
            })?),
        };
    let uid = match who.parse::<u32>() {
        Ok(u) => u,
        Err(_) => found.map(|e| e.1).unwrap_or(0),
    };
    let gid = match group {
        Some(g) => g
            .parse::<u32>()
            .map_err(|_| CliError::Msg(format!("--user {s}: the group must be a number")))?,
        None => found.map(|e| e.2).unwrap_or(uid),
    };
    Ok(User {
        uid,
        gid,
        name: found.map(|e| e.0.clone()),
        home: found.map(|e| e.3.clone()),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const PASSWD: &str = "root:x:0:0:root:/root:/bin/bash\n\
                          nobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\n\
                          dev:x:1000:100::/home/dev:/bin/sh\n";

    #[test]
    fn names_numbers_and_groups() {
        let u = parse_with("dev", PASSWD).unwrap();
        assert_eq!((u.uid, u.gid), (1000, 100));
        assert_eq!(u.home.as_deref(), Some("/home/dev"));
        let u = parse_with("1000", PASSWD).unwrap();
        assert_eq!((u.uid, u.gid, u.name.as_deref()), (1000, 100, Some("dev")));
        let u = parse_with("4242", PASSWD).unwrap();
        assert_eq!((u.uid, u.gid, u.name), (4242, 4242, None));
        let u = parse_with("nobody:7", PASSWD).unwrap();
        assert_eq!((u.uid, u.gid), (65534, 7));
        assert!(parse_with("ghost", PASSWD).is_err());
        assert!(parse_with("dev:staff", PASSWD).is_err());
    }
}
