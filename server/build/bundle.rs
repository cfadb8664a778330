//! A page's modules as one file: the module its `<script type="module">`
//! names and every module it imports, each wrapped in a function whose
//! result is its exports, in an order where each comes after what it
//! imports. A page then costs one request and one compressed stream
//! instead of one of each per module (a cold visit on a slow link waits
//! for them six at a time, and each answer carries its own headers); the
//! modules stay what `web/` holds, served one by one as well for pages
//! that import them (an embedder's `element.js`).
//!
//! It reads only what the client's modules are written as, and stops the
//! build on anything else: `import { a, b as c } from './x.js';` and
//! `import * as x from './x.js';` at the start of a line; `export`
//! before a `function`, `async function`, `class`, `const` or `let` that
//! declares one name; `export { a, b as c };`. No default exports, no
//! re-exports, no cycles. Every name imported must be exported.

use std::collections::BTreeMap;

/// A module taken apart: its code without imports and `export`
/// keywords, what it imports, and what it exports.
struct Parts {
    body: String,
    /// (module, what the import statement binds: `{ a, b: c }` or `P`).
    imports: Vec<(String, Binding)>,
    /// (exported name, local name).
    exports: Vec<(String, String)>,
}

/// What an import binds.
enum Binding {
    /// `import * as P`: the module's exports as one object.
    Namespace(String),
    /// `import { a, b as c }`: (imported, local) pairs.
    Names(Vec<(String, String)>),
}

/// The variable holding `module`'s exports in a bundle.
fn variable(module: &str) -> String {
    let stem = module.strip_suffix(".js").unwrap_or(module);
    let ident: String = stem
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect();
    format!("__panecast_{ident}")
}

fn identifier(text: &str) -> Option<&str> {
    let end = text
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '$'))
        .unwrap_or(text.len());
    (end > 0).then(|| &text[..end])
}

/// `a, b as c` as (name, alias) pairs.
fn name_list(name: &str, list: &str) -> Vec<(String, String)> {
    list.split(',')
        .map(str::trim)
        .filter(|item| !item.is_empty())
        .map(|item| {
            let mut words = item.split_whitespace();
            match (words.next(), words.next(), words.next(), words.next()) {
                (Some(a), None, None, None) => (a.to_owned(), a.to_owned()),
                (Some(a), Some("as"), Some(b), None) => (a.to_owned(), b.to_owned()),
                _ => panic!("web/{name}: cannot read {item:?} in an import or export list"),
            }
        })
        .collect()
}

/// The quoted module of `from './x.js'` at the end of `statement`.
fn from_module(name: &str, statement: &str) -> String {
    let (_, quoted) = statement
        .rsplit_once("from")
        .unwrap_or_else(|| panic!("web/{name}: no `from` in {statement:?}"));
    let quoted = quoted.trim().trim_end_matches(';').trim();
    let inner = quoted
        .strip_prefix('\'')
        .and_then(|q| q.strip_suffix('\''))
        .or_else(|| quoted.strip_prefix('"').and_then(|q| q.strip_suffix('"')))
        .unwrap_or_else(|| panic!("web/{name}: cannot read the module of {statement:?}"));
    inner
        .strip_prefix("./")
        .unwrap_or_else(|| panic!("web/{name}: imports {inner:?}; modules import './NAME.js'"))
        .to_owned()
}

fn import_statement(name: &str, statement: &str) -> (String, Binding) {
    let module = from_module(name, statement);
    let what = statement["import".len()..]
        .rsplit_once("from")
        .map_or("", |(what, _)| what)
        .trim();
    let binding = if let Some(namespace) = what.strip_prefix("* as ") {
        Binding::Namespace(namespace.trim().to_owned())
    } else if let Some(list) = what.strip_prefix('{').and_then(|w| w.strip_suffix('}')) {
        Binding::Names(name_list(name, list))
    } else {
        panic!("web/{name}: only `import {{ ... }}` and `import * as X` are bundled: {statement:?}")
    };
    (module, binding)
}

/// Takes a module as served (one statement start per line, see
/// `served_js`) apart.
fn parts(name: &str, js: &str) -> Parts {
    let mut parts = Parts {
        body: String::with_capacity(js.len()),
        imports: Vec::new(),
        exports: Vec::new(),
    };
    let mut pending: Option<String> = None;
    for line in js.lines() {
        if let Some(statement) = pending.as_mut() {
            statement.push(' ');
            statement.push_str(line);
            let done = statement.trim_end().ends_with(';');
            if done {
                let statement = pending.take().unwrap_or_default();
                if statement.starts_with("import") {
                    parts.imports.push(import_statement(name, &statement));
                } else {
                    export_list(name, &statement, &mut parts.exports);
                }
            }
            continue;
        }
        let import = line
            .strip_prefix("import")
            .is_some_and(|rest| rest.starts_with([' ', '{', '*']));
        if import || line.starts_with("export {") || line.starts_with("export{") {
            if line.trim_end().ends_with(';') {
                if import {
                    parts.imports.push(import_statement(name, line));
                } else {
                    export_list(name, line, &mut parts.exports);
                }
            } else {
                pending = Some(line.to_owned());
            }
            continue;
        }
        if let Some(declaration) = line.strip_prefix("export ") {
            let exported = ["async function ", "function ", "class ", "const ", "let "]
                .iter()
                .find_map(|keyword| declaration.strip_prefix(keyword))
                .and_then(identifier)
                .unwrap_or_else(|| {
                    panic!("web/{name}: cannot bundle this export (one function, class, const or let): {line:?}")
                });
            parts
                .exports
                .push((exported.to_owned(), exported.to_owned()));
            parts.body.push_str(declaration);
        } else {
            parts.body.push_str(line);
        }
        parts.body.push('\n');
    }
    assert!(
        pending.is_none(),
        "web/{name}: an import or export list that never ends"
    );
    parts
}

fn export_list(name: &str, statement: &str, exports: &mut Vec<(String, String)>) {
    assert!(
        !statement.contains(" from "),
        "web/{name}: re-exports are not bundled: {statement:?}"
    );
    let list = statement
        .split_once('{')
        .and_then(|(_, rest)| rest.split_once('}'))
        .map(|(list, _)| list)
        .unwrap_or_else(|| panic!("web/{name}: cannot read the export list {statement:?}"));
    for (local, exported) in name_list(name, list) {
        exports.push((exported, local));
    }
}

/// The bundle of `entry` (a module of `modules`, each as served).
pub fn bundle(entry: &str, modules: &BTreeMap<String, String>) -> String {
    let mut order = Vec::new();
    let mut taken: BTreeMap<String, Parts> = BTreeMap::new();
    visit(entry, modules, &mut Vec::new(), &mut order, &mut taken);
    let mut out = format!(
        "// web/{entry} and the modules it imports, bundled when the server was built\n\
         // (server/build/bundle.rs); the sources are web/*.js.\n"
    );
    for module in &order {
        let parts = &taken[module];
        let is_entry = module == entry;
        if is_entry {
            out.push_str("(() => {\n");
        } else {
            out.push_str(&format!("const {} = (() => {{\n", variable(module)));
        }
        for (from, binding) in &parts.imports {
            let exports = &taken[from].exports;
            let source = variable(from);
            match binding {
                Binding::Namespace(local) => out.push_str(&format!("const {local} = {source};\n")),
                Binding::Names(names) => {
                    let fields: Vec<String> = names
                        .iter()
                        .map(|(imported, local)| {
                            assert!(
                                exports.iter().any(|(e, _)| e == imported),
                                "web/{module}: imports {imported} from {from}, which does not export it"
                            );
                            field(imported, local)
                        })
                        .collect();
                    out.push_str(&format!("const {{ {} }} = {source};\n", fields.join(", ")));
                }
            }
        }
        out.push_str(&parts.body);
        if is_entry {
            out.push_str("})();\n");
        } else {
            let fields: Vec<String> = parts
                .exports
                .iter()
                .map(|(exported, local)| field(exported, local))
                .collect();
            out.push_str(&format!("return {{ {} }};\n}})();\n", fields.join(", ")));
        }
    }
    out
}

/// An object pattern's or literal's field: `name`, or `name: local`.
fn field(name: &str, local: &str) -> String {
    if name == local {
        name.to_owned()
    } else {
        format!("{name}: {local}")
    }
}

/// Puts `module` after everything it imports (depth first), taking each
/// apart once; `path` is the chain of imports that led here (a cycle
/// stops the build).
fn visit(
    module: &str,
    modules: &BTreeMap<String, String>,
    path: &mut Vec<String>,
    order: &mut Vec<String>,
    taken: &mut BTreeMap<String, Parts>,
) {
    if taken.contains_key(module) {
        return;
    }
    assert!(
        !path.iter().any(|m| m == module),
        "web/{module}: an import cycle ({} -> {module}): bundles need none",
        path.join(" -> ")
    );
    let js = modules
        .get(module)
        .unwrap_or_else(|| panic!("web/{module} is imported but is not a module of web/"));
    let parts = parts(module, js);
    path.push(module.to_owned());
    for (from, _) in &parts.imports {
        visit(from, modules, path, order, taken);
    }
    path.pop();
    taken.insert(module.to_owned(), parts);
    order.push(module.to_owned());
}
