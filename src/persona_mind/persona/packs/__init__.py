"""Packs and their global store: the data model, validation, the tree scan, names,
frontmatter, the store and its state, lifecycle verbs, drafts, export, the file port.
"""
