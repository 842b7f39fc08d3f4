(class name: [(constant) (scope_resolution)] @name) @def.class
(module name: [(constant) (scope_resolution)] @name) @def.module
(method name: (_) @name) @def.method
(singleton_method name: (_) @name) @def.method
(program (assignment left: (constant) @name) @def.constant)

(superclass (constant) @name) @ref.extends
(superclass (scope_resolution scope: (_) @qualifier name: (constant) @name)) @ref.extends
(call receiver: (_) @qualifier method: (identifier) @name) @ref.calls
(call !receiver method: (identifier) @name) @ref.calls

(call method: (identifier) @_fn arguments: (argument_list . (string (string_content) @path)) (#match? @_fn "^require")) @import
