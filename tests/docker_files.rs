//! The container recipe's files are what they claim: the Job manifest parses as YAML, is a
//! Kubernetes Job that never retries a task, runs `schrodinger run` with the repository last
//! before `--`, grants CAP_SYS_ADMIN without privileged mode and requests memory; the
//! Dockerfile's builder is the glibc-2.31 Debian that docs/scale.md names, and its last
//! stage holds the binary alone.

use yaml_rust2::{Yaml, YamlLoader};

fn root() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("docker")
}

#[test]
fn the_job_manifest_is_a_job_that_runs_schrodinger_run() {
    let text = std::fs::read_to_string(root().join("job.yaml")).unwrap();
    let docs = YamlLoader::load_from_str(&text).expect("job.yaml is YAML");
    assert_eq!(docs.len(), 1);
    let job = &docs[0];
    assert_eq!(job["apiVersion"].as_str(), Some("batch/v1"));
    assert_eq!(job["kind"].as_str(), Some("Job"));
    assert_eq!(job["spec"]["backoffLimit"].as_i64(), Some(0));
    let pod = &job["spec"]["template"]["spec"];
    assert_eq!(pod["restartPolicy"].as_str(), Some("Never"));
    let c = &pod["containers"][0];
    let cmd: Vec<&str> = c["command"]
        .as_vec()
        .expect("a command list")
        .iter()
        .map(|y| y.as_str().expect("strings"))
        .collect();
    assert!(
        cmd[0].ends_with("/schrodinger") && cmd[1] == "run",
        "{cmd:?}"
    );
    let dashes = cmd
        .iter()
        .position(|a| *a == "--")
        .expect("-- before the agent");
    assert_eq!(cmd[dashes - 1], "/testbed");
    assert!(cmd.contains(&"--out"));
    let sec = &c["securityContext"];
    assert_eq!(sec["privileged"].as_bool(), Some(false));
    let caps = sec["capabilities"]["add"].as_vec().unwrap();
    assert_eq!(caps, &vec![Yaml::String("SYS_ADMIN".into())]);
    assert!(c["resources"]["requests"]["memory"].as_str().is_some());
}

#[test]
fn the_dockerfile_builds_on_bullseye_and_ships_the_binary_alone() {
    let text = std::fs::read_to_string(root().join("Dockerfile")).unwrap();
    let froms: Vec<&str> = text.lines().filter(|l| l.starts_with("FROM ")).collect();
    assert_eq!(
        froms,
        [
            "FROM rust:1-bullseye AS build",
            "FROM scratch AS schrodinger"
        ]
    );
    let last = &text[text.rfind("FROM ").unwrap()..];
    let copies: Vec<&str> = last.lines().filter(|l| l.starts_with("COPY")).collect();
    assert_eq!(copies, ["COPY --from=build /schrodinger /schrodinger"]);
}
