(namespace_declaration name: (_) @name) @package
(file_scoped_namespace_declaration name: (_) @name) @package
(namespace_declaration name: (_) @name) @def.module
(class_declaration name: (identifier) @name) @def.class
(record_declaration name: (identifier) @name) @def.class
(interface_declaration name: (identifier) @name) @def.interface
(struct_declaration name: (identifier) @name) @def.struct
(enum_declaration name: (identifier) @name) @def.enum
(method_declaration name: (identifier) @name) @def.method
(constructor_declaration name: (identifier) @name) @def.method

(base_list (identifier) @name) @ref.extends
(base_list (generic_name (identifier) @name)) @ref.extends
(invocation_expression function: (identifier) @name) @ref.calls
(invocation_expression function: (member_access_expression expression: (_) @qualifier name: (identifier) @name)) @ref.calls
(object_creation_expression type: (identifier) @name) @ref.calls

(using_directive [(qualified_name) (identifier)] @path) @import
