# fallback.aj: 'fallback landlock;' where no user namespace can be had
# (stub/fallback.c), turned off again in a mode; 'link?' as the host has
# it: its link, its directory read-only, or nothing.
policy fallback {
    fallback landlock;
    ro?   /usr /etc;
    link? /bin -> usr/bin;
    link  /sbin -> usr/sbin;
    rw    $PROJECT;
    mode strict {
        fallback none;
    }
}
