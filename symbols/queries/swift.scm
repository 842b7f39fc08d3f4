(import_declaration (identifier) @path) @import

(class_declaration declaration_kind: "class" name: (type_identifier) @name) @def.class
(class_declaration declaration_kind: "actor" name: (type_identifier) @name) @def.class
(class_declaration declaration_kind: "struct" name: (type_identifier) @name) @def.struct
(class_declaration declaration_kind: "enum" name: (type_identifier) @name) @def.enum
(protocol_declaration name: (type_identifier) @name) @def.interface
(typealias_declaration name: (type_identifier) @name) @def.type
; An extension's members are methods of the type it extends, as a Rust
; impl block's.
(class_declaration declaration_kind: "extension" name: (user_type (type_identifier) @receiver)
  body: (class_body (function_declaration name: (simple_identifier) @name) @def.method))
(function_declaration name: (simple_identifier) @name) @def.function
(protocol_function_declaration name: (simple_identifier) @name) @def.method
(enum_entry name: (simple_identifier) @name @def.constant)
(source_file (property_declaration name: (pattern bound_identifier: (simple_identifier) @name)) @def.variable)

(inheritance_specifier inherits_from: (user_type (type_identifier) @name)) @ref.extends
(call_expression (simple_identifier) @name) @ref.calls
(call_expression (navigation_expression target: (_) @qualifier suffix: (navigation_suffix suffix: (simple_identifier) @name))) @ref.calls
(user_type (type_identifier) @name) @ref.references
