import { Alert, Loader, Paper } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { useNavigate, useSearchParams } from 'react-router';
import { PageTitle } from '../../components/PageTitle.tsx';
import { useProduct } from './api/get-product.ts';
import { ProductForm } from './ProductForm.tsx';

/** `/products/create`, or `/products/create?duplicate=<id>` to start from another product. */
export default function ProductCreatePage() {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const [params] = useSearchParams();
  const duplicateId = Number(params.get('duplicate')) || null;
  const template = useProduct(duplicateId);
  const back = () => navigate('/products');
  return (
    <>
      <PageTitle title={duplicateId ? t('catalogue.product.duplicateTitle', { name: template.data?.formattedName ?? '' }) : t('pages.productCreate')} />
      <Paper withBorder p="lg" maw={900}>
        {duplicateId && template.isPending && <Loader size="sm" aria-label={t('common.loading')} />}
        {duplicateId && template.isError && <Alert color="red">{t('errors.ERR_NOT_FOUND')}</Alert>}
        {(!duplicateId || template.data) && (
          // A new key per template, so that the form starts over with its values.
          <ProductForm key={template.data?.id ?? 'new'} product={null} template={template.data ?? null} onSaved={back} onCancel={back} />
        )}
      </Paper>
    </>
  );
}
