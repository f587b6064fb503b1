//! Where `gate run` and `gate check` find the plan when no path is given: `gate.yaml` in the
//! current directory, then `.config/gate.yaml` — the way nextest finds `.config/nextest.toml`
//! and pytest its `pytest.ini`, so the commands a user types most need no argument.

use std::path::{Path, PathBuf};

/// The plan files looked for, in order, relative to the current directory.
pub const DEFAULT_PLANS: [&str; 2] = ["gate.yaml", ".config/gate.yaml"];

/// The plan to load: the one given, else the first of [`DEFAULT_PLANS`] that exists in
/// `dir`. The error says where it looked and that `gate init` writes one (exit 2).
pub fn resolve(given: Option<&Path>, dir: &Path) -> Result<PathBuf, String> {
    if let Some(p) = given {
        return Ok(p.to_path_buf());
    }
    DEFAULT_PLANS
        .iter()
        .map(Path::new)
        .find(|p| dir.join(p).exists())
        .map(Path::to_path_buf)
        .ok_or_else(|| {
            format!(
                "no plan file given, and neither `{}` nor `{}` exists here: run `gate init` to \
                 write one, or pass the plan's path",
                DEFAULT_PLANS[0], DEFAULT_PLANS[1]
            )
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_given_path_wins_then_gate_yaml_then_dot_config() {
        let d = tempfile::tempdir().unwrap();
        let err = resolve(None, d.path()).unwrap_err();
        assert!(err.contains("run `gate init`"), "{err}");
        std::fs::create_dir(d.path().join(".config")).unwrap();
        std::fs::write(d.path().join(".config/gate.yaml"), "").unwrap();
        assert_eq!(
            resolve(None, d.path()).unwrap(),
            PathBuf::from(".config/gate.yaml")
        );
        std::fs::write(d.path().join("gate.yaml"), "").unwrap();
        assert_eq!(resolve(None, d.path()).unwrap(), PathBuf::from("gate.yaml"));
        assert_eq!(
            resolve(Some(Path::new("x.yaml")), d.path()).unwrap(),
            PathBuf::from("x.yaml")
        );
    }
}
