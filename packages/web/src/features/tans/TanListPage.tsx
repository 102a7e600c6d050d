import { FeaturePending } from '../../components/FeaturePending.tsx';

export default function TanListPage() {
  return <FeaturePending titleKey="pages.tans" />;
}
