(package_header (identifier) @name) @package
(import_header (identifier) @path .) @import
(import_header (identifier) @path (wildcard_import)) @import
(import_header (identifier) @path (import_alias (type_identifier) @alias)) @import

; A class_declaration is also an interface or an enum by its keyword: the
; specific patterns come first, and the duplicate the generic one makes is
; merged into them (extraction.finish).
(class_declaration "interface" (type_identifier) @name) @def.interface
(class_declaration "enum" (type_identifier) @name) @def.enum
(class_declaration (type_identifier) @name) @def.class
(object_declaration (type_identifier) @name) @def.class
(companion_object (type_identifier) @name) @def.class
(type_alias (type_identifier) @name) @def.type
; An extension function names its receiver type before its name.
(function_declaration (user_type (type_identifier) @receiver) . (simple_identifier) @name) @def.method
(function_declaration (simple_identifier) @name) @def.function
(property_declaration (modifiers (property_modifier) @_const) (variable_declaration (simple_identifier) @name) (#eq? @_const "const")) @def.constant
(source_file (property_declaration (variable_declaration (simple_identifier) @name)) @def.variable)
(enum_entry (simple_identifier) @name) @def.constant

(delegation_specifier (user_type (type_identifier) @name)) @ref.extends
(delegation_specifier (constructor_invocation (user_type (type_identifier) @name))) @ref.extends
(call_expression (simple_identifier) @name) @ref.calls
(call_expression (navigation_expression (_) @qualifier (navigation_suffix (simple_identifier) @name))) @ref.calls
(user_type (type_identifier) @name) @ref.references
