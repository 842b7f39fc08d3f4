;;; eglot.el --- drives ctxls serve from a real Emacs through eglot  -*- lexical-binding: t -*-
;; Run by emacs_test.go: emacs --batch -Q -l eglot.el.  Environment: WS (the
;; workspace), CTXLS_BIN, OUT (where the JSON of what it saw is written).
;; Eglot is built into Emacs 29; Debian's Emacs 28 gets it from elpa-eglot,
;; under /usr/share/emacs/site-lisp/elpa, a directory -Q leaves out.

(require 'package)
(add-to-list 'package-directory-list "/usr/share/emacs/site-lisp/elpa")
(package-initialize)
(require 'eglot)
(require 'json)

(defvar ctxls-root (getenv "WS"))
(defvar ctxls-bin (getenv "CTXLS_BIN"))
(defvar ctxls-out (getenv "OUT"))
(defvar ctxls-result (list (cons 'eglot (locate-library "eglot"))))
(defvar ctxls-ready nil)

(defun ctxls-put (key value) (push (cons key value) ctxls-result))

(defun ctxls-finish (code)
  (with-temp-file ctxls-out (insert (json-encode ctxls-result)))
  (kill-emacs code))

(defun ctxls-wait (pred seconds)
  "Run the event loop until PRED holds or SECONDS pass; return PRED's value."
  (let ((deadline (+ (float-time) seconds)) v)
    (while (and (not (setq v (funcall pred))) (< (float-time) deadline))
      (accept-process-output nil 0.05))
    v))

;; Emacs 28 has no Go mode of its own: a bare one is enough for eglot,
;; which picks the server by major mode and sends the languageId "go".
(define-derived-mode go-mode prog-mode "Go")
(add-to-list 'auto-mode-alist '("\\.go\\'" . go-mode))
(setq eglot-server-programs
      `((go-mode . (,ctxls-bin "serve" "--stdio" "--log-file" ,(concat ctxls-root "/serve.log")
                               "--log-level" "debug" "--debounce" "0"))))
;; The workspace is not under version control: name its root as a
;; transient project, as a user of such a tree would.
(add-hook 'project-find-functions (lambda (_dir) (cons 'transient ctxls-root)))
(setq eglot-send-changes-idle-time 0.05
      eglot-autoshutdown nil
      eglot-sync-connect 30
      eglot-connect-timeout 30)

;; ctxls/status is ctxls's own notification: the index is ready when it
;; says so with entities.
(cl-defmethod eglot-handle-notification (_server (_method (eql ctxls/status)) &rest params)
  (when (and (equal (plist-get params :state) "ready")
             (> (or (plist-get params :entities) 0) 0))
    (setq ctxls-ready t)))

(condition-case err
    (progn
      (find-file (concat ctxls-root "/auth/service.go"))
      ;; M-x eglot, without the questions: eglot-ensure waits for a
      ;; command loop that batch mode never runs.
      (apply #'eglot (eglot--guess-contact))
      (let ((server (eglot-current-server)))
        (unless server (ctxls-put 'error "eglot did not connect") (ctxls-finish 1))
        (ctxls-put 'initialized t)
        (ctxls-put 'ready (and (ctxls-wait (lambda () ctxls-ready) 30) t))
        ;; Hover on Login (line 7, column 24 in the protocol's 0-based terms).
        (goto-char (point-min))
        (forward-line 6)
        (forward-char 24)
        (let ((hover (jsonrpc-request server :textDocument/hover (eglot--TextDocumentPositionParams))))
          (ctxls-put 'hover (plist-get (plist-get hover :contents) :value)))
        ;; Edit as a person would: eglot records the change from
        ;; after-change-functions and sends it from an idle timer, which
        ;; batch mode never fires (it never waits for input): send it as
        ;; that timer would.
        (goto-char (point-min))
        (forward-line 14)
        (insert "\n// RevokeToken ends a session.\nfunc RevokeToken(tok string) bool { return tok != \"\" }\n")
        (eglot--signal-textDocument/didChange)
        (let* ((md (concat ctxls-root "/.ctxls/auto-context.md"))
               (text nil)
               (edited (ctxls-wait
                        (lambda ()
                          (when (file-exists-p md)
                            (setq text (with-temp-buffer (insert-file-contents md) (buffer-string)))
                            (string-search "RevokeToken" text)))
                        15)))
          (ctxls-put 'edited (and edited t))
          (ctxls-put 'autocontext (or text "")))
        (eglot-shutdown server)
        (ctxls-put 'stopped (not (jsonrpc-running-p server)))
        (set-buffer-modified-p nil)
        (ctxls-finish 0)))
  (error (ctxls-put 'error (error-message-string err))
         (ctxls-finish 1)))
