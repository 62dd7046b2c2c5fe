# café
policy latin1 { }
