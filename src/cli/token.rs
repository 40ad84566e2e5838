//! `reclaimlab token create|revoke|list`.

use crate::auth::{self, Scope};
use crate::config::{TokenAction, TokenArgs};
use crate::storage::tokens;

pub async fn run(a: TokenArgs) -> anyhow::Result<()> {
    let pool = crate::db::connect(&a.db).await?;
    crate::db::migrate(&pool).await?;
    match a.action {
        TokenAction::Create {
            name,
            scope,
            expires_days,
        } => {
            let scope = Scope::parse(&scope).ok_or_else(|| {
                anyhow::anyhow!("--scope must be read, upload or admin, not '{scope}'")
            })?;
            if name.trim().is_empty() {
                anyhow::bail!("--name must not be empty");
            }
            let (secret, hash) = auth::generate(scope);
            let prefix: String = secret.chars().take(scope.as_str().len() + 3 + 8).collect();
            let expires = expires_days.map(|d| chrono::Utc::now() + chrono::Duration::days(d));
            let rec =
                tokens::create(&pool, name.trim(), scope.as_str(), &hash, &prefix, expires).await?;
            eprintln!(
                "created token {} '{}' with scope {} (shown once; only its hash is stored):",
                rec.id, rec.name, rec.scope
            );
            println!("{secret}");
        }
        TokenAction::Revoke { which } => {
            let n = tokens::revoke(&pool, &which).await?;
            if n == 0 {
                anyhow::bail!("no active token matches '{which}'");
            }
            println!("revoked {n} token(s)");
        }
        TokenAction::List => {
            println!(
                "{:>4}  {:<20} {:<7} {:<20} {:<10} created",
                "id", "name", "scope", "prefix", "state"
            );
            for t in tokens::list(&pool).await? {
                let state = if t.revoked_at.is_some() {
                    "revoked"
                } else if t.expires_at.is_some_and(|e| e < chrono::Utc::now()) {
                    "expired"
                } else {
                    "active"
                };
                println!(
                    "{:>4}  {:<20} {:<7} {:<20} {:<10} {}",
                    t.id,
                    t.name,
                    t.scope,
                    t.prefix,
                    state,
                    t.created_at.format("%Y-%m-%d %H:%M")
                );
            }
        }
    }
    Ok(())
}
