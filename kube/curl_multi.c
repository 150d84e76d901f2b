/* kube/curl_multi.c — streams driven together (see kube/curl.h). Its own
 * file so that a program using only kube/curl.c (the CLI, which loads
 * libcurl lazily) never links libcurl's multi functions. */
#include <stdlib.h>

#include "kube/curl.h"
#include "kube/curl_priv.h"

struct kube_curl_multi {
	CURLM *m;
};

kube_curl_multi *kube_curl_multi_new(bh_error *err)
{
	kube_curl_multi *m = calloc(1, sizeof *m);
	if (!m || !(m->m = curl_multi_init())) {
		free(m);
		bh_error_set(err, BH_ENOMEM, "curl_multi_init failed");
		return NULL;
	}
	return m;
}

void kube_curl_multi_free(kube_curl_multi *m)
{
	if (!m)
		return;
	curl_multi_cleanup(m->m);
	free(m);
}

int kube_curl_multi_add(kube_curl_multi *m, kube_transport *t, const kube_request *req, kube_response *resp,
                        kube_stream_fn on_data, void *ud, bh_error *err)
{
	CURL *h = kube_curl_start(t, req, resp, on_data, ud, err);
	CURLMcode mc;
	if (!h)
		return err ? err->code : BH_EINVAL;
	curl_easy_setopt(h, CURLOPT_PRIVATE, (void *)t);
	if ((mc = curl_multi_add_handle(m->m, h)) != CURLM_OK) {
		kube_curl_end(t, CURLE_OK, 1, NULL);
		return bh_error_set(err, mc == CURLM_OUT_OF_MEMORY ? BH_ENOMEM : BH_EIO, "%s %s: %s", req->method,
		                    req->path, curl_multi_strerror(mc));
	}
	return 0;
}

/* The transport whose handle h is (kube_curl_multi_add set it). */
static kube_transport *owner(CURL *h)
{
	void *t = NULL;
	curl_easy_getinfo(h, CURLINFO_PRIVATE, &t);
	return t;
}

void kube_curl_multi_stop(kube_curl_multi *m, kube_transport *t)
{
	bh_error e;
	curl_multi_remove_handle(m->m, kube_curl_handle(t));
	kube_curl_end(t, CURLE_OK, 1, &e);
}

void kube_curl_multi_run(kube_curl_multi *m, int timeout_ms, kube_curl_end_fn on_end, void *ud)
{
	int running, left;
	CURLMsg *msg;
	curl_multi_poll(m->m, NULL, 0, timeout_ms, NULL);
	curl_multi_perform(m->m, &running);
	while ((msg = curl_multi_info_read(m->m, &left))) {
		if (msg->msg != CURLMSG_DONE)
			continue;
		CURL *h = msg->easy_handle;
		CURLcode cc = msg->data.result;
		kube_transport *t = owner(h);
		bh_error e = {0};
		curl_multi_remove_handle(m->m, h);
		int rc = kube_curl_end(t, cc, 0, &e);
		on_end(ud, t, rc, &e);
	}
}

void kube_curl_multi_wakeup(kube_curl_multi *m)
{
	curl_multi_wakeup(m->m);
}
