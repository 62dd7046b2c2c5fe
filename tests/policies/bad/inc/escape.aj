policy esc { # ]0;title
}
